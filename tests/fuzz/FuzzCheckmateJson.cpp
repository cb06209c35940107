// libFuzzer entry point for readCheckmateJson: any bytes must give a graph or an error, never a crash.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "FuzzRoundTrip.hpp"
#include "remat/io/CheckmateJson.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  remat::fuzz::checkReadResult(remat::io::readCheckmateJson(text, "fuzz.json"));
  return 0;
}
