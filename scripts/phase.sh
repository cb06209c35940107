# Sourced by the build and test scripts: `phase NAME COMMAND...` runs COMMAND, says how long it took on
# stderr, and where REMAT_PROFILE_DIR names a folder (.ci/run sets it), appends a line
# "NAME<TAB>SECONDS<TAB>EXIT-STATUS" to REMAT_PROFILE_DIR/phases.tsv for scripts/ci-profile.sh. The
# command's exit status is returned unchanged, so `set -e` stops the script where it did before.

phase() {
  local name="$1"
  shift
  local start end status=0
  start="$(date +%s%N)"
  "$@" || status=$?
  end="$(date +%s%N)"
  local tenths=$(((end - start) / 100000000))
  local seconds="$((tenths / 10)).$((tenths % 10))"
  printf '== %s: %s s%s\n' "$name" "$seconds" "$([ "$status" -eq 0 ] || echo ", exit $status")" >&2
  if [ -n "${REMAT_PROFILE_DIR:-}" ]; then
    mkdir -p "$REMAT_PROFILE_DIR"
    printf '%s\t%s\t%s\n' "$name" "$seconds" "$status" >>"$REMAT_PROFILE_DIR/phases.tsv"
  fi
  return "$status"
}

# `run_ctest LOGNAME CTEST-ARGS...`: ctest with its output also kept as REMAT_PROFILE_DIR/LOGNAME.log
# (each test's time is on its result line), for the profile's slowest tests.
run_ctest() {
  local log="$1"
  shift
  if [ -n "${REMAT_PROFILE_DIR:-}" ]; then
    mkdir -p "$REMAT_PROFILE_DIR"
    ctest "$@" 2>&1 | tee "$REMAT_PROFILE_DIR/$log.log"
    return "${PIPESTATUS[0]}"
  fi
  ctest "$@"
}
