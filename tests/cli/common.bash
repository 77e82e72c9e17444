# The preamble of every CLI test (sourced; not a test itself: tests/CMakeLists.txt globs
# *.sh): the arguments, a scratch directory removed on exit, and the helpers that run
# scatterctl and check what it did. external_common.bash adds to it for external backends.
# Usage: source it from a script whose $1 is scatterctl and $2 the repository.
set -u
BIN=$1
REPO=$2
TMP=$(mktemp -d)
# chmod first: bad_inputs.sh leaves unreadable files and directories behind.
trap 'chmod -R u+rwx "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT

# fail WHAT: reports WHAT with the tails of the last run's stdout and stderr, and ends the
# script; with KEEP_GOING=1 it counts the failure in $failures instead (end the script
# with `end_checks`).
failures=0
fail() {
  echo "FAIL: $*"
  echo "--- stdout (tail)"; tail -c 3000 "$TMP/out" 2>/dev/null; echo
  echo "--- stderr (tail)"; tail -c 3000 "$TMP/err" 2>/dev/null; echo
  failures=$((failures + 1))
  [ -n "${KEEP_GOING:-}" ] || exit 1
}
# end_checks [WHAT]: for KEEP_GOING scripts, the count of failures (after WHAT), "ok" when
# there were none, and the exit status.
end_checks() {
  echo "${1:+$1, }$failures failures"
  [ "$failures" -eq 0 ] && echo "ok"
  exit $((failures > 0))
}
# check WHAT COMMAND...: runs COMMAND; fails with WHAT and the last exit code when it fails.
check() {
  local what=$1
  shift
  if "$@"; then
    echo "ok: $what"
  else
    fail "$what (exit code ${rc:-?})"
  fi
}

# ctl ARGS...: runs scatterctl, stdout and stderr in $TMP/out and $TMP/err, the exit code in
# $rc; within $LIMIT seconds when set, as the command prefix $RUN_AS when set.
RUN_AS=()
ctl() {
  local limit=()
  [ -z "${LIMIT:-}" ] || limit=(timeout -k 5 "$LIMIT")
  "${limit[@]}" "${RUN_AS[@]}" "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
}

rc_is() { [ "$rc" -eq "$1" ]; }
out_has() { grep -Eq -- "$1" "$TMP/out"; }
out_lacks() { ! grep -Eq -- "$1" "$TMP/out"; }
err_has() { grep -Eq -- "$1" "$TMP/err"; }
err_lacks() { ! grep -Eq -- "$1" "$TMP/err"; }
last_line() { tail -n 1 "$TMP/out"; }
last_line_is() { [ "$(last_line)" = "$1" ]; }
last_line_matches() { last_line | grep -Eq -- "$1"; }

# float_cases DIR N: DIR/f1.json ... fN.json, float32 scatter_elements cases named fI_case
# without an expected output (ref is their oracle), which the test plugins declare.
float_cases() {
  mkdir -p "$1"
  local n
  for n in $(seq 1 "$2"); do
    cat >"$1/f$n.json" <<JSON
{"name": "f${n}_case", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
            "indices": {"dtype": "int64", "shape": [2], "values": [3, 1]},
            "updates": {"dtype": "float32", "shape": [2], "values": [10, $n]}}}
JSON
  done
}

# rows_case NAME SECOND_ROW: axis 1 of [[1, 2, 3], [4, 5, 6]] with updates [[30], [40]] at
# [[2], [0]]: the output is [[1, 2, 30], [40, 5, 6]]; the case expects SECOND_ROW as its second
# row ("40, 5, 6" passes, anything else fails).
rows_case() {
  cat <<JSON
{"name": "$1", "op": "scatter_elements", "axis": 1,
 "inputs": {"data": {"dtype": "int32", "shape": [2, 3], "values": [[1, 2, 3], [4, 5, 6]]},
            "indices": {"dtype": "int64", "shape": [2, 1], "values": [[2], [0]]},
            "updates": {"dtype": "int32", "shape": [2, 1], "values": [[30], [40]]}},
 "expected": {"dtype": "int32", "shape": [2, 3], "values": [[1, 2, 30], [$2]]}}
JSON
}

# one_case NAME: a scatter_elements case that passes: [1, 2, 3] with 9 written at index 1.
one_case() {
  cat <<JSON
{"name": "$1", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "int32", "shape": [3], "values": [1, 2, 3]},
            "indices": {"dtype": "int64", "shape": [1], "values": [1]},
            "updates": {"dtype": "int32", "shape": [1], "values": [9]}},
 "expected": {"dtype": "int32", "shape": [3], "values": [1, 9, 3]}}
JSON
}
