#pragma once

#include <stdexcept>
#include <string>

namespace remat::runtime {

/// remat-runner's exit codes (printed by --help). Each failure class has its own code so that scripts
/// (remat validate, CI) can tell a bad file from a plan for another graph or an unsupported operation.
enum class ExitCode : int {
  Ok = 0,
  GradientMismatch = 1,  ///< --check-grads / --grads-ref: a parameter gradient differs beyond tolerance
  Usage = 2,             ///< bad command line
  Input = 3,             ///< a file is missing, unreadable, not JSON, or not a valid graph or plan
  Internal = 4,          ///< a bug in the runner
  PlanMismatch = 5,      ///< the plan belongs to another graph (other name, unknown node)
  Schedule = 6,          ///< the schedule cannot be played (an illegal or incomplete step)
  UnsupportedOp = 7,     ///< an operation the runner cannot execute (type, attributes, what it saves)
  Execution = 8,         ///< an operation failed or produced another size than the graph states
  Device = 9,            ///< the device is not available (cuda without a CUDA LibTorch or GPU)
  OutOfMemory = 10,      ///< the device ran out of memory (c10::OutOfMemoryError on CUDA, a failed CPU allocation)
};

/// A failure with the exit code it maps to; the message names the file, node and step where known.
class RunnerError : public std::runtime_error {
 public:
  RunnerError(ExitCode code, const std::string& message) : std::runtime_error(message), m_code(code) {}
  [[nodiscard]] ExitCode code() const { return m_code; }

 private:
  ExitCode m_code;
};

}  // namespace remat::runtime
