#pragma once

// What every reader fuzzer checks beyond "no crash": a failure carries at least one error, and a
// success survives writeNativeJson -> readNativeJson unchanged.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "remat/graph/ComputeGraph.hpp"
#include "remat/graph/Diagnostic.hpp"
#include "remat/io/DotWriter.hpp"
#include "remat/io/NativeJson.hpp"

namespace remat::fuzz {

inline void checkReadResult(const Result<graph::ComputeGraph>& r) {
  if (!r.ok()) {
    if (r.errors().empty()) {
      std::fprintf(stderr, "reader failed without an error message\n");
      std::abort();
    }
    return;
  }
  const std::string text = io::writeNativeJson(r.value());
  auto back = io::readNativeJson(text, "roundtrip.json");
  if (!back.ok()) {
    std::fprintf(stderr, "native round trip failed to read:\n%s\n--- written text:\n%s\n", back.errorText().c_str(),
                 text.c_str());
    std::abort();
  }
  if (!back.value().sameAs(r.value())) {
    std::fprintf(stderr, "native round trip changed the graph; written text:\n%s\n", text.c_str());
    std::abort();
  }
  (void)io::writeDot(r.value());
}

}  // namespace remat::fuzz
