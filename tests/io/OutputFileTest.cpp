// io::writeFileAtomically and io::checkOutputPath: a file is written whole or not at all, and nothing that
// is not a regular file (or is an input) is ever replaced.

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "IoTestSupport.hpp"
#include "remat/io/OutputFile.hpp"

using namespace remat::io;
using remat::io::test::readText;
namespace fs = std::filesystem;

namespace {

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    static int count = 0;
    path =
        fs::temp_directory_path() / ("remat-output-test-" + std::to_string(::getpid()) + "-" + std::to_string(count++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return (path / name).string(); }
  /// Every name in the folder, sorted: what a writer left behind.
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

void put(const std::string& path, const std::string& text) { REQUIRE_FALSE(writeFileAtomically(path, text)); }

}  // namespace

TEST_CASE(
    "writeFileAtomically writes the bytes, replaces a file, honours the umask for a new one, leaves nothing beside it",
    "[io][output]") {
  ScratchDir dir;
  const std::string out = dir.file("plan.json");
  put(out, "first");
  CHECK(readText(out) == "first");
  const std::string binary("a\0b\xff", 4);
  put(out, binary);
  CHECK(readText(out) == binary);
  put(out, "");
  CHECK(readText(out).empty());
  CHECK(dir.names() == std::vector<std::string>{"plan.json"});
  for (const mode_t mask : {mode_t{022}, mode_t{077}}) {
    ::unlink(out.c_str());  // a new file: the umask decides (a replaced one keeps its mode, below)
    const mode_t old = ::umask(mask);
    put(out, "x");
    ::umask(old);
    struct stat st {};
    REQUIRE(::stat(out.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == (0666 & ~mask));
  }
}

TEST_CASE("writeFileAtomically keeps the permissions of the file it replaces", "[io][output]") {
  ScratchDir dir;
  const std::string out = dir.file("secret.json");
  put(out, "first");
  for (const mode_t mode : {mode_t{0600}, mode_t{0640}, mode_t{0755}}) {
    REQUIRE(::chmod(out.c_str(), mode) == 0);
    const mode_t old = ::umask(022);
    put(out, "again");
    ::umask(old);
    struct stat st {};
    REQUIRE(::stat(out.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == mode);
    CHECK(readText(out) == "again");
  }
  CHECK(dir.names() == std::vector<std::string>{"secret.json"});
}

TEST_CASE("writeFileAtomically replaces a symbolic link at the target, never the file it points to", "[io][output]") {
  ScratchDir dir;
  const std::string victim = dir.file("victim.txt");
  put(victim, "keep me");
  fs::create_symlink(victim, dir.file("out.svg"));
  put(dir.file("out.svg"), "<svg/>");
  CHECK(readText(victim) == "keep me");
  CHECK_FALSE(fs::is_symlink(dir.file("out.svg")));
  CHECK(readText(dir.file("out.svg")) == "<svg/>");
}

TEST_CASE("outputs that are not regular files are refused and left as they are", "[io][output]") {
  ScratchDir dir;
  auto refusedAlike = [&](const std::string& path, const std::string& why) {
    INFO(path);
    const auto checked = checkOutputPath(path);
    REQUIRE(checked);
    CHECK(checked->kind == WriteError::Kind::Target);
    CHECK(checked->message == "refusing to write '" + path + "': " + why);
    const auto written = writeFileAtomically(path, "data");
    REQUIRE(written);
    CHECK(written->kind == WriteError::Kind::Target);
    CHECK(written->message == checked->message);
  };
  fs::create_directory(dir.file("folder.svg"));
  refusedAlike(dir.file("folder.svg"), "it is a directory");
  CHECK(fs::is_directory(dir.file("folder.svg")));
  refusedAlike(dir.file("new/"), "it names a directory");
  REQUIRE(::mkfifo(dir.file("fifo.svg").c_str(), 0644) == 0);
  refusedAlike(dir.file("fifo.svg"), "it is a FIFO (named pipe), not a regular file");
  CHECK(fs::is_fifo(dir.file("fifo.svg")));
  // The kind of file /dev/full is, made here (creating device nodes needs privileges).
  if (::mknod(dir.file("full.svg").c_str(), S_IFCHR | 0644, makedev(1, 7)) == 0) {
    refusedAlike(dir.file("full.svg"), "it is a device, not a regular file");
    CHECK(fs::is_character_file(dir.file("full.svg")));
  } else {
    WARN("character device case skipped: mknod is not permitted here (" << std::strerror(errno) << ")");
  }
  // A symbolic link to a FIFO counts as the FIFO.
  fs::create_symlink(dir.file("fifo.svg"), dir.file("to-fifo.svg"));
  refusedAlike(dir.file("to-fifo.svg"), "it is a FIFO (named pipe), not a regular file");
  for (const auto& name : dir.names()) CHECK(name.find(".tmp") == std::string::npos);
}

TEST_CASE("checkOutputPath refuses an input under any of its names", "[io][output]") {
  ScratchDir dir;
  const std::string graph = dir.file("g.json");
  put(graph, "{}");
  fs::create_hard_link(graph, dir.file("hard.json"));
  fs::create_symlink(graph, dir.file("soft.json"));
  put(dir.file("other.json"), "{}");
  const std::vector<std::string> inputs{dir.file("plan.json"), graph};
  const auto same = checkOutputPath(graph, inputs);
  REQUIRE(same);
  CHECK(same->kind == WriteError::Kind::Target);
  CHECK(same->message == "refusing to write '" + graph + "': it is the input file");
  for (const std::string& path : {dir.file("hard.json"), dir.file("soft.json"), (dir.path / "." / "g.json").string()}) {
    const auto refused = checkOutputPath(path, inputs);
    INFO(path);
    REQUIRE(refused);
    std::string expected = "refusing to write '" + path;
    expected += "': it is the input file '" + graph + "'";
    CHECK(refused->message == expected);
  }
  CHECK_FALSE(checkOutputPath(dir.file("other.json"), inputs));
  CHECK_FALSE(checkOutputPath(dir.file("new.json"), inputs));
  CHECK_FALSE(checkOutputPath(dir.file("other.json")));
}

TEST_CASE("a write that fails leaves no file and the old one intact", "[io][output]") {
  ScratchDir dir;
  const auto missing = writeFileAtomically(dir.file("no/such/folder/out.json"), "data");
  REQUIRE(missing);
  CHECK(missing->kind == WriteError::Kind::Io);
  CHECK_THAT(missing->message, Catch::StartsWith("cannot write '" + dir.file("no/such/folder/out.json") + "': ") &&
                                   Catch::Contains("No such file or directory"));

  // A full file system: a 64 KiB tmpfs (needs the privilege to mount; skipped with the reason otherwise).
  const fs::path small = dir.path / "small";
  fs::create_directory(small);
  if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0) {
    WARN("full-file-system case skipped: cannot mount a tmpfs here (" << std::strerror(errno) << ")");
    return;
  }
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount(path.c_str()); }
  } unmount{small.string()};
  const std::string target = (small / "figure.svg").string();
  put(target, "old figure");
  const auto full = writeFileAtomically(target, std::string(std::size_t{1} << 20, 'x'));
  REQUIRE(full);
  CHECK(full->kind == WriteError::Kind::Io);
  CHECK(full->message == "cannot write '" + target + "': No space left on device");
  CHECK(readText(target) == "old figure");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(small)) left.push_back(e.path().filename().string());
  CHECK(left == std::vector<std::string>{"figure.svg"});
}

TEST_CASE("concurrent writers of one path each rename a whole file: the result is always one of them", "[io][output]") {
  ScratchDir dir;
  const std::string out = dir.file("figure.svg");
  constexpr int kWriters = 8;
  constexpr int kRounds = 20;
  auto content = [](int writer) { return std::string(std::size_t{200'000} + std::size_t(writer), char('a' + writer)); };
  std::vector<std::thread> threads;
  threads.reserve(kWriters);
  std::vector<int> failures(kWriters, 0);
  for (int w = 0; w < kWriters; ++w)
    threads.emplace_back([&, w] {
      const std::string text = content(w);
      for (int r = 0; r < kRounds; ++r) failures[w] += writeFileAtomically(out, text) ? 1 : 0;
    });
  for (auto& t : threads) t.join();
  for (int w = 0; w < kWriters; ++w) CHECK(failures[w] == 0);
  const std::string result = readText(out);
  REQUIRE_FALSE(result.empty());
  const int writer = result.front() - 'a';
  REQUIRE(writer >= 0);
  REQUIRE(writer < kWriters);
  CHECK(result == content(writer));
  CHECK(dir.names() == std::vector<std::string>{"figure.svg"});
}
