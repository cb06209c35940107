#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace remat::runtime {

/// What went wrong in profiling or validation, so that a front end can choose its exit code.
enum class ValidationFailure : std::uint8_t {
  Usage,        ///< a bad option value (iterations below 1, an unknown device name)
  Input,        ///< a file: missing, unreadable, invalid, a plan for another graph, a schedule the simulator
                ///< rejects, an operation remat-runner cannot execute
  Measurement,  ///< the measurement could not be made or is wrong: no runner built, the device is not
                ///< available or ran out of memory, an operation failed on it, the gradients differ
  Internal,     ///< a bug: the runner and this library disagree about a file they both know
};

/// A failure of profiling or validation with a readable message (file, node and step where known).
class ValidationError : public std::runtime_error {
 public:
  ValidationError(ValidationFailure kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
  [[nodiscard]] ValidationFailure kind() const { return m_kind; }

 private:
  ValidationFailure m_kind;
};

}  // namespace remat::runtime
