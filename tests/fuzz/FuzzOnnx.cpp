// libFuzzer entry point for readOnnx: any bytes must give a graph or an error, never a crash. The batch
// override is taken from the first byte now and then, so that path is fuzzed as well.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "FuzzRoundTrip.hpp"
#include "remat/io/Onnx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  remat::io::OnnxOptions options;
  if (size > 0 && data[size - 1] == 0xB7) options.batch = 1 + data[0] % 64;
  remat::fuzz::checkReadResult(remat::io::readOnnx(bytes, "fuzz.onnx", options));
  return 0;
}
