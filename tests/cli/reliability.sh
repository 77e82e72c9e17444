#!/usr/bin/env bash
# What ends or disturbs a run never loses its reports or passes it by accident
# (docs/reliability.md): a reader that goes away (SIGPIPE), a full disk under one report or
# under --save-failures, private folders left by killed runs, a case whose shape overflows
# beside a zero dimension. Signals and hostile workers: limits_and_signals.sh, workers.sh.
# Usage: reliability.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"
KEEP_GOING=1
SELF=$(realpath "$BIN")
one_case good >"$TMP/good.json"

# A reader that closes at once: SIGPIPE is ignored, the run ends normally, the report is written.
"$BIN" run "$REPO/cases/scatter_nd" --backend ref --json "$TMP/pipe.json" 2>"$TMP/err" | true
rc=${PIPESTATUS[0]}
check "run | true: not killed by SIGPIPE (exit $rc)" rc_is 0
check "... and its report is written" test -s "$TMP/pipe.json"

# [0, 2^32, 2^32]: no elements, but its strides overflow. Refused by validate; the run goes on
# with the other files and writes its reports.
mkdir "$TMP/zero"
cp "$TMP/good.json" "$TMP/zero/a_good.json"
cat >"$TMP/zero/b_overflow.json" <<'JSON'
{"name": "zero_overflow", "op": "ScatterND",
 "inputs": {"data": {"dtype": "float32", "shape": [0, 4294967296, 4294967296], "values": []},
            "indices": {"dtype": "int64", "shape": [0, 1], "values": []},
            "updates": {"dtype": "float32", "shape": [0, 4294967296, 4294967296], "values": []}}}
JSON
ctl validate "$TMP/zero/b_overflow.json"
check "validate refuses a zero-size shape whose strides overflow (exit 3)" rc_is 3
check "... naming the field and the shape" out_has "inputs.data.shape = \[0, 4294967296, 4294967296\]: the product of its other dimensions overflows int64"
ctl run "$TMP/zero" --backend ref --json "$TMP/zero.json"
check "run of it beside a good case: exit 3, not an abort" rc_is 3
check "... the good case passed" out_has "^good .*passed"
check "... and the report is written" test -s "$TMP/zero.json"

# Folders of killed runs: a dead PID's is removed by the next run that makes one; a live one's
# and another prefix's are kept.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  sh -c 'exit 0' &
  dead=$!
  wait "$dead"
  mkdir -p "/dev/shm/scatterctl-$dead-stale01" "/dev/shm/scatterctl-$$-live001" "/dev/shm/other-$dead-keep01"
  touch "/dev/shm/scatterctl-$dead-stale01/worker.log"
  ctl run "$TMP/good.json" --backend "x=exe:$SELF:ref"
  check "a run with a worker passes" rc_is 0
  check "... and removes a dead run's private folder" test ! -e "/dev/shm/scatterctl-$dead-stale01"
  check "... but not a live run's" test -d "/dev/shm/scatterctl-$$-live001"
  check "... nor another program's" test -d "/dev/shm/other-$dead-keep01"
  rmdir "/dev/shm/scatterctl-$$-live001" "/dev/shm/other-$dead-keep01"
fi

# Failure bundles are one folder each under DIR, whatever the backend is called: a plugin's
# path nests no folders and cannot climb out.
plugin_dir=${SCATTERCTL_TEST_PLUGINS:-}
if [ -f "$plugin_dir/wrong_answer.so" ]; then
  float_cases "$TMP/float" 1
  ctl run "$TMP/float" --backend "ref,plugin:$plugin_dir/wrong_answer.so" --save-failures "$TMP/bundles"
  check "a wrong answer with --save-failures: exit 1" rc_is 1
  check "... its bundle is one folder under DIR, named after the case and backend (and the hash of their text)" \
    test "$(cd "$TMP/bundles" && find . -name repro.json | sed 's/~[0-9a-f]\{8\}\/repro.json$//')" = "./f1_case@plugin__$(echo "${plugin_dir#/}" | tr -c 'A-Za-z0-9._@+=,\n-' '_')_wrong_answer.so"
fi

# A full disk: a 64 KiB tmpfs (a mount namespace of our own; skipped where that is not allowed).
if unshare -m true 2>/dev/null; then
  mkdir "$TMP/full" "$TMP/healthy"
  # A JSON report on the full disk, JUnit on a healthy one: the JUnit is written, the JSON
  # error is named, and the run, which passed, exits 7.
  unshare -m bash -c 'mount -t tmpfs -o size=64k none "$1" && { head -c 70000 /dev/zero > "$1/filler" 2>/dev/null; true; } &&
    "$2" run "$3/cases/scatter_nd" --backend ref --json "$1/r.json" --junit "$4/r.xml"' _ \
    "$TMP/full" "$BIN" "$REPO" "$TMP/healthy" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  check "a report on a full disk: exit 7 (the run passed, a report is missing)" rc_is 7
  check "... naming it" err_has "cannot write '.*r.json'"
  check "... the JUnit on the healthy disk is written" test -s "$TMP/healthy/r.xml"
  # --save-failures on the full disk: a warning, and every case still runs.
  if [ -f "$plugin_dir/wrong_answer.so" ]; then
    unshare -m bash -c 'mount -t tmpfs -o size=64k none "$1" && { head -c 70000 /dev/zero > "$1/filler" 2>/dev/null; true; } &&
      "$2" run "$3/cases/scatter_elements" --backend "ref,plugin:$4" --save-failures "$1/bundles"' _ \
      "$TMP/full" "$BIN" "$REPO" "$plugin_dir/wrong_answer.so" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    check "--save-failures on a full disk: exit 1 (the wrong answers), not 2" rc_is 1
    check "... warning that the bundles could not be written" out_has "^warning: --save-failures: .*; the run went on"
    check "... and every case ran: the closing line is there" last_line_matches "^scatterctl: [0-9]+ passed, [0-9]+ failed"
  fi
fi

end_checks "reliability"
