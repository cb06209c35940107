#pragma once

// Running the project's own programs from a test, as a user runs them: arguments quoted for the shell,
// stdin empty, stdout captured, stderr through a file (so that the two stay apart).

#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace remat::test {

struct ProgramRun {
  int code = -1;  ///< the exit code; -1 when the program did not exit normally
  std::string out;
  std::string err;
  [[nodiscard]] nlohmann::json json() const { return nlohmann::json::parse(out); }
};

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// A folder of this test process's own under the system's temporary folder, created on first use.
inline std::filesystem::path scratchDir(const std::string& prefix) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void writeFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// Runs `binary` with `args`; its stderr goes through a file in `scratch`.
inline ProgramRun runProgram(const std::string& binary, const std::vector<std::string>& args,
                             const std::filesystem::path& scratch) {
  const std::filesystem::path errFile = scratch / "stderr.txt";
  std::string cmd = shellQuote(binary);
  for (const auto& a : args) cmd += " " + shellQuote(a);
  cmd += " 2>" + shellQuote(errFile.string()) + " </dev/null";
  ProgramRun r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(errFile);
  return r;
}

}  // namespace remat::test
