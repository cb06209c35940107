#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "remat/graph/Units.hpp"

namespace remat {

/// Parses a byte count: plain bytes ("1048576") or a number with a unit, KB/MB/GB/TB (powers of 1000)
/// or KiB/MiB/GiB/TiB (powers of 1024), optionally fractional ("1.5GiB") and case-insensitive ("2gib").
/// Returns nullopt for anything else, for negative values, and for values over 2^63 - 1.
[[nodiscard]] std::optional<Bytes> parseByteSize(std::string_view text);

/// "1.50 GiB", "12.0 MiB", "512 B": three significant digits in binary units.
[[nodiscard]] std::string formatByteSize(Bytes b);

/// "1.50 GiB (1610612736 bytes)": the readable size and the exact count, for messages.
[[nodiscard]] std::string formatByteSizeExact(Bytes b);

}  // namespace remat
