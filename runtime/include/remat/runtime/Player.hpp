#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remat/runtime/Measurement.hpp"

namespace remat::runtime {

/// What remat-runner was asked to do (its command line, parsed).
struct RunOptions {
  std::string graphFile;
  std::optional<std::string> planFile;  ///< play this plan; without it, the plain baseline
  std::string device = "cpu";           ///< "cpu", "cuda" or "cuda:N"
  std::uint64_t seed = 0;
  /// Unmeasured iterations first; on the CPU with keepHeap and faults counted, up to 8 more while the
  /// last one page-faulted 1 MiB or more (Measurement::warmup is the number run).
  int warmup = 2;
  int iterations = 3;
  bool checkGrads = false;              ///< also run the baseline and compare parameter gradients
  std::optional<std::string> gradsRef;  ///< compare with gradients saved by --grads-out instead
  std::optional<std::string> gradsOut;  ///< save the parameter gradients (torch.load-able)
  double rtol = 1e-4;
  double atol = 1e-6;
  bool liveness = true;  ///< free every value and gradient right after its last use, as the simulator
  int threads = 0;       ///< intra-op threads; 0 keeps LibTorch's default
  /// On the CPU, have the C library keep freed memory for reuse instead of handing it back to the
  /// operating system (glibc's mallopt), and keep LibTorch's freed blocks of 1 MiB or more by size for
  /// reuse, so that the measured iterations do not page-fault fresh memory in.
  bool keepHeap = true;
};

/// Reads the graph (and plan), checks that every operation can run and that the schedule can be played,
/// creates parameters and inputs with random values (seeded), plays the schedule (or the baseline)
/// `warmup + iterations` times and measures. Throws RunnerError with the exit code of the failure; the
/// gradient check's outcome is in the measurement, not thrown.
[[nodiscard]] Measurement run(const RunOptions& options);

/// Checks the graph, plan and schedule without creating any tensor (for --dry-run).
void checkOnly(const RunOptions& options);

}  // namespace remat::runtime
