#!/usr/bin/env bash
# Style and static checks: every tracked C++ file formatted as .clang-format says (clang-format 14), and
# clang-tidy (.clang-tidy's checks, warnings as errors) on the C++ sources changed since BASE.
#   scripts/lint.sh [BASE]     # BASE: a commit; default the merge-base with origin/main, or HEAD~1 on main
# clang-tidy reads build/compile_commands.json (scripts/build.sh dev writes it); without it, or without
# changed sources, only the formatting is checked. `clang-format -i FILE` fixes what the first check finds.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t sources < <(git ls-files '*.cpp' '*.hpp')
echo "lint: clang-format on ${#sources[@]} files"
if ! clang-format --dry-run --Werror "${sources[@]}"; then
  echo "lint: files above are not formatted (clang-format -i FILE)" >&2
  exit 1
fi

# ctest hands each Catch test's name to its binary, which reads a name that begins with "--" as an option.
# catch_discover_tests hands names over as CMake list elements: a ";" would cut one in two, each half
# matching no case (ctest runs them with -w NoTests, so they fail rather than pass empty).
if grep -rnE -A1 'TEST_CASE\(' tests | grep -E '"[^"]*;[^"]*"' | grep -v '^\S*-[0-9]*-\s*//'; then
  echo "lint: a test name above contains ';': CMake would cut it in two" >&2
  exit 1
fi
if grep -rnE 'TEST_CASE\("-' tests; then
  echo "lint: a test name above begins with '-': ctest would pass it to Catch as an option" >&2
  exit 1
fi

base="${1:-}"
if [ -z "$base" ]; then
  if git rev-parse -q --verify origin/main >/dev/null && [ "$(git rev-parse origin/main)" != "$(git rev-parse HEAD)" ]; then
    base="$(git merge-base HEAD origin/main)"
  elif git rev-parse -q --verify HEAD~1 >/dev/null; then
    base="HEAD~1"
  fi
fi
if [ -z "$base" ] || [ ! -f build/compile_commands.json ]; then
  echo "lint: no base commit or no build/compile_commands.json: clang-tidy skipped"
  exit 0
fi
# The dev build's compile commands, one per source: a unity translation unit (the command line's) stands
# for the sources it includes, each of which gets its command with the source in place of the unity file,
# so that clang-tidy sees every source as a translation unit of its own.
db="$(mktemp -d)"
trap 'rm -rf "$db"' EXIT
/usr/bin/python3 - build/compile_commands.json "$db/compile_commands.json" <<'PY'
import json, re, sys
entries = json.load(open(sys.argv[1]))
out = []
for e in entries:
    if "/Unity/unity_" not in e["file"]:
        out.append(e)
        continue
    for source in re.findall(r'^#include "(.+)"$', open(e["file"]).read(), re.M):
        copy = dict(e, file=source)
        copy["command"] = e["command"].replace(e["file"], source)
        out.append(copy)
# LibTorch 1.13's headers do not parse as C++20 with clang 14 (its constexpr std::vector instantiates the
# destructor of a vector of c10::IValue where IValue is still incomplete; GCC, which builds them, does
# not), so clang-tidy would stop at errors in them: the sources that include them are checked as C++17.
for e in out:
    if "/torch/csrc/api/include" in e["command"]:
        e["command"] = e["command"].replace("-std=c++20", "-std=c++17")
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
# Sources the dev build compiles (a file the configuration leaves out, such as the CUDA-only parts,
# has no compile command).
mapfile -t changed < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' |
  while read -r f; do grep -q "\"file\": \"$PWD/$f\"" "$db/compile_commands.json" && echo "$f"; done)
echo "lint: clang-tidy on ${#changed[@]} source(s) changed since $(git rev-parse --short "$base")"
[ "${#changed[@]}" -eq 0 ] && exit 0
clang-tidy -p "$db" --quiet --warnings-as-errors='*' "${changed[@]}"
