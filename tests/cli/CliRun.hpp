#pragma once

// What the command-line tests share: remat run as a user runs it, in a scratch folder of this test
// process's own, and the committed fixtures.

#include <filesystem>
#include <string>
#include <vector>

#include "ProgramRun.hpp"

namespace remat::test {

/// This process's scratch folder; ctest runs every test case in a process of its own.
inline std::filesystem::path scratch() { return scratchDir("remat-cli-test"); }

/// The remat under test with `args`; its stderr goes through the scratch folder.
inline ProgramRun runRemat(const std::vector<std::string>& args) { return runProgram(REMAT_BINARY, args, scratch()); }

/// A file under tests/fixtures.
inline std::string fixture(const std::string& name) { return std::string(REMAT_FIXTURES_DIR) + "/" + name; }

}  // namespace remat::test
