// The command line under signals and misbehaving runners: SIGINT and SIGTERM stop remat at once with
// 128 + the signal, leaving no child process, no temporary and nothing at the target; a runner that hangs,
// crashes, exits early or writes garbage is exit code 5 with what it printed (docs/cli.md, Signals and
// Runners).
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "CliRun.hpp"
#include "ProgramRun.hpp"

namespace {

namespace fs = std::filesystem;
using Run = remat::test::ProgramRun;

using remat::test::fixture;

// A fake remat-runner: answers the dry run, then does `body` for a measurement. Its -o path is $out.
fs::path fakeRunner(const fs::path& dir, const std::string& name, const std::string& body) {
  fs::path script = dir / name;
  std::ofstream(script) << "#!/bin/sh\n"
                           "out=''; prev=''\n"
                           "for a in \"$@\"; do\n"
                           "  [ \"$a\" = --dry-run ] && exit 0\n"
                           "  [ \"$prev\" = -o ] && out=\"$a\"\n"
                           "  prev=\"$a\"\n"
                           "done\n"
                        << body << "\n";
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

// A runner that never ends, it and a child of its own (both recorded in $REMAT_TEST_PIDS).
const char* const kHang =
    "echo $$ >> \"$REMAT_TEST_PIDS\"\n"
    "sleep 300 &\n"
    "echo $! >> \"$REMAT_TEST_PIDS\"\n"
    "echo 'remat-runner: measuring' >&2\n"
    "wait";

// Whether a process recorded by a fake runner still runs (a zombie waiting for its reaper does not).
bool running(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() || text[close + 2] != 'Z';
}

std::vector<pid_t> recordedPids(const fs::path& file) {
  std::vector<pid_t> pids;
  std::ifstream in(file);
  for (long pid = 0; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

// Runs remat under `env` settings (KEY=VALUE) and optionally `timeout` sending a signal after `after` s.
Run runUnder(const fs::path& scratch, const std::vector<std::string>& env, const std::string& signal, double after,
             const std::vector<std::string>& args) {
  std::vector<std::string> all = env;
  if (!signal.empty()) all.insert(all.end(), {"timeout", "--preserve-status", "-s", signal, std::to_string(after)});
  all.emplace_back(REMAT_BINARY);
  all.insert(all.end(), args.begin(), args.end());
  return remat::test::runProgram("/usr/bin/env", all, scratch);
}

}  // namespace

TEST_CASE("validate stops a runner that hangs at --runner-timeout, with its process group: exit code 5") {
  const fs::path dir = remat::test::scratchDir("remat-cli-signals-hang");
  const fs::path pids = dir / "pids";
  const fs::path runner = fakeRunner(dir, "hang.sh", kHang);
  const auto start = std::chrono::steady_clock::now();
  const Run r = runUnder(dir, {"REMAT_TEST_PIDS=" + pids.string()}, "", 0,
                         {"validate", fixture("cli/chain3.json"), "--solvers", "store-all", "--runner", runner.string(),
                          "--runner-timeout", "1"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.err);
  CHECK(r.code == 5);
  CHECK_THAT(r.err, Catch::Contains("did not finish") && Catch::Contains("--runner-timeout"));
  CHECK_THAT(r.err, Catch::Contains("remat-runner: measuring"));  // what it printed last
  // Its deadline, the two seconds of grace at most, and room for a loaded machine: not for ever.
  CHECK(seconds < 1 + 2 + 4);
  const std::vector<pid_t> recorded = recordedPids(pids);
  REQUIRE(recorded.size() == 2);
  for (pid_t pid : recorded) CHECK_FALSE(running(pid));
}

TEST_CASE("validate --time-limit bounds the whole command: no runner call runs past it, exit code 5") {
  const fs::path dir = remat::test::scratchDir("remat-cli-signals-total");
  const fs::path pids = dir / "pids";
  const fs::path runner = fakeRunner(dir, "hang.sh", kHang);
  const auto start = std::chrono::steady_clock::now();
  // The runner's own deadline is an hour (the default); the command's is one second.
  const Run r = runUnder(dir, {"REMAT_TEST_PIDS=" + pids.string()}, "", 0,
                         {"validate", fixture("cli/chain3.json"), "--solvers", "store-all,exact-dp", "--runner",
                          runner.string(), "--time-limit", "1"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.err);
  CHECK(r.code == 5);
  CHECK_THAT(r.err, Catch::Contains("did not finish") && Catch::Contains("--time-limit"));
  CHECK(seconds < 1 + 2 + 4);
  for (pid_t pid : recordedPids(pids)) CHECK_FALSE(running(pid));
}

TEST_CASE("validate: a runner that crashes, exits early or writes garbage is exit code 5 with what it printed") {
  const fs::path dir = remat::test::scratchDir("remat-cli-signals-bad-runner");
  const struct {
    const char* name;
    const char* body;
    const char* says;
  } runners[] = {
      {"crash.sh", "echo 'remat-runner: about to fail' >&2\nkill -SEGV $$", "signal 11"},
      {"early.sh", "echo 'remat-runner: leaving early' >&2\nexit 0", "no usable measurement"},
      {"garbage.sh", "echo 'not json at all' > \"$out\"\nexit 0", "no usable measurement"},
  };
  for (const auto& fake : runners) {
    INFO(fake.name);
    const fs::path runner = fakeRunner(dir, fake.name, fake.body);
    const Run r =
        runUnder(dir, {"TMPDIR=" + dir.string()}, "", 0,
                 {"validate", fixture("cli/chain3.json"), "--solvers", "store-all", "--runner", runner.string()});
    INFO(r.err);
    CHECK(r.code == 5);
    CHECK_THAT(r.err, Catch::Contains(fake.says));
    // The temporary folder is gone, and never named: the user knows the plan by its solver.
    CHECK_THAT(r.err, !Catch::Contains("remat-validate-"));
  }
}

TEST_CASE("SIGTERM to validate ends the runner's process group and removes the temporary folder: exit 143") {
  const fs::path dir = remat::test::scratchDir("remat-cli-signals-term");
  const fs::path tmp = dir / "tmp";
  fs::create_directories(tmp);
  const fs::path pids = dir / "pids";
  const fs::path runner = fakeRunner(dir, "hang.sh", kHang);
  // The signal once the runner and its child run (however long remat took to get there, as under a
  // sanitizer): remat in the background, its pid waited on.
  const std::string script =
      "TMPDIR=" + remat::test::shellQuote(tmp.string()) + " REMAT_TEST_PIDS=" + remat::test::shellQuote(pids.string()) +
      " " + remat::test::shellQuote(REMAT_BINARY) + " validate " + remat::test::shellQuote(fixture("cli/chain3.json")) +
      " --solvers store-all --runner " + remat::test::shellQuote(runner.string()) +
      " & pid=$!; n=0; while [ $n -lt 1200 ] && [ \"$(wc -l < " + remat::test::shellQuote(pids.string()) +
      " 2>/dev/null || echo 0)\" -lt 2 ]; do sleep 0.05; n=$((n+1)); done; kill -TERM $pid; wait $pid";
  const Run r = remat::test::runProgram("/bin/sh", {"-c", script}, dir);
  INFO(r.err);
  CHECK(r.code == 143);
  CHECK_THAT(r.err, Catch::Contains("remat: interrupted by SIGTERM"));
  const std::vector<pid_t> recorded = recordedPids(pids);
  REQUIRE(recorded.size() == 2);
  for (pid_t pid : recorded) CHECK_FALSE(running(pid));
  CHECK(fs::is_empty(tmp));  // no remat-validate-* folder left
}

TEST_CASE("SIGINT mid-solve: exit 130, nothing at the target, no temporary beside it") {
  const fs::path dir = remat::test::scratchDir("remat-cli-signals-int");
  const fs::path out = dir / "out";
  fs::create_directories(out);
  // The exact DP on PSPNet takes far longer than the signal's second.
  const Run r = runUnder(dir, {}, "INT", 1,
                         {"solve", std::string(REMAT_SOURCE_DIR) + "/datasets/pspnet.json", "-s", "exact-dp",
                          "--budget", "2GiB", "-o", (out / "plan.json").string()});
  INFO(r.err);
  CHECK(r.code == 130);
  CHECK_THAT(r.err, Catch::Contains("remat: interrupted by SIGINT"));
  CHECK(fs::is_empty(out));
}
