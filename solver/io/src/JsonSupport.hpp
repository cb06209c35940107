#pragma once

// The JSON readers' entry points on a parsed document, private to the io library.

#include "remat/io/detail/JsonSupport.hpp"

namespace remat::io::detail {

/// The native reader on an already parsed document (readGraphFile parses once to detect the format).
[[nodiscard]] Result<graph::ComputeGraph> readNativeDocument(const Json& doc, Diagnostics& diag);
/// The Checkmate/Moccasin reader on an already parsed document.
[[nodiscard]] Result<graph::ComputeGraph> readCheckmateDocument(const Json& doc, Diagnostics& diag,
                                                                bool asGiven = false);

}  // namespace remat::io::detail
