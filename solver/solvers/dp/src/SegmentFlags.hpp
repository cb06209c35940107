#pragma once

// The marks the simulator's model puts on a segment's values while it costs a transition (private to
// dp/: SimulatedDpModel.cpp's quick bounds and SimulatedTransition.cpp's exact walk share them).

#include <cstdint>

namespace remat::solvers::dp_detail {

inline constexpr std::uint8_t kKept = 1;    // kept from the forward: a checkpoint, or read by the last backward
inline constexpr std::uint8_t kNeeded = 2;  // recomputed by the segment's backward
inline constexpr std::uint8_t kGrad = 4;    // its gradient is in memory
inline constexpr std::uint8_t kHeld = 8;    // a root whose forward storage a kept value holds

}  // namespace remat::solvers::dp_detail
