#!/usr/bin/env bash
# Where the time of a CI run went: the wall time of each phase (packages, each build, each ctest run,
# fuzzing, lint) and the slowest tests, from the records that scripts/phase.sh leaves in DIR.
# .ci/run prints it at its end, whether the run passed or not.
#   scripts/ci-profile.sh [DIR] [COUNT]     DIR: default build-ci; COUNT slowest tests, default 15
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-ci}"
count="${2:-15}"
if [ ! -f "$dir/phases.tsv" ]; then
  echo "ci-profile: no $dir/phases.tsv (run .ci/run, or a script with REMAT_PROFILE_DIR=$dir)" >&2
  exit 2
fi

minutes() { awk -v s="$1" 'BEGIN { printf "%d:%04.1f", int(s / 60), s - 60 * int(s / 60) }'; }

echo "CI profile ($(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
printf '%-34s %9s  %s\n' "phase" "m:ss" "status"
sum=0
while IFS=$'\t' read -r name seconds status; do
  printf '%-34s %9s  %s\n' "$name" "$(minutes "$seconds")" "$([ "$status" = 0 ] && echo ok || echo "exit $status")"
  sum="$(awk -v a="$sum" -v b="$seconds" 'BEGIN { print a + b }')"
done <"$dir/phases.tsv"
printf '%-34s %9s\n' "sum of the phases" "$(minutes "$sum")"
if [ -f "$dir/start" ]; then
  now="$(date +%s)"
  printf '%-34s %9s\n' "whole run" "$(minutes "$((now - $(cat "$dir/start")))")"
fi

shopt -s nullglob
logs=("$dir"/ctest-*.log)
[ ${#logs[@]} -gt 0 ] || exit 0
echo
echo "The $count slowest tests (seconds, build, test):"
# A ctest result line: "  12/400 Test  #97: solvers: name ......   Passed   10.21 sec".
for log in "${logs[@]}"; do
  build="$(basename "$log" .log)"
  build="${build#ctest-}"
  awk -v build="$build" '
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .* sec$/ {
      line = $0
      sub(/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /, "", line)
      seconds = line
      sub(/ sec$/, "", seconds)
      sub(/.* /, "", seconds)
      name = line
      sub(/ +\.* *(\*\*\*)?[A-Z][A-Za-z:]*( [A-Za-z]+)* +[0-9.]+ sec$/, "", name)
      printf "%8.2f  %-5s %s\n", seconds, build, name
    }' "$log"
done | sort -rn | awk -v n="$count" 'NR <= n'  # awk reads to the end: `head` would stop sort with SIGPIPE
for log in "${logs[@]}"; do
  build="$(basename "$log" .log)"
  summary="$(grep -E '^[0-9]+% tests passed' "$log" || true)"
  [ -n "$summary" ] && echo "${build#ctest-}: $summary"
done
exit 0
