# Shared by tests/cli/plugins.sh and tests/cli/workers.sh (sourced; not a test itself),
# on top of common.bash: runs scatterctl with a known pid, so that each run's private
# tensor directory (/dev/shm/scatterctl-PID-*, or $TMPDIR/...) can be checked.
# Usage: source it from a script whose $1 is scatterctl and $2 the repository.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
# Where the private directory goes when /dev/shm cannot be written.
export TMPDIR="$TMP/tmpdir"
mkdir "$TMPDIR"
export NO_COLOR=1

# start ARGS...: scatterctl ARGS in the background (at most $LIMIT seconds, default 120),
# stdout and stderr in $TMP/out and $TMP/err; its pid in $pid once it runs.
start() {
  rm -f "$TMP/pid"
  timeout -k 5 "${LIMIT:-120}" sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/pid" "$BIN" "$@" >"$TMP/out" 2>"$TMP/err" &
  job=$!
  for _ in $(seq 100); do
    [ -s "$TMP/pid" ] && break
    sleep 0.05
  done
  pid=$(cat "$TMP/pid")
}
# finish: waits for the run that start began; $rc is its exit code, $seconds its duration.
finish() {
  wait "$job"
  rc=$?
  seconds=$(($(date +%s) - t0))
}
# ctl ARGS...: runs scatterctl to the end; then its private directory must be gone.
ctl() {
  t0=$(date +%s)
  start "$@"
  finish
  no_private_dir_left || fail "the private directory of 'scatterctl $*' (pid $pid) is left: $(private_dirs)"
}
private_dirs() { ls -d /dev/shm/scatterctl-"$pid"-* "$TMPDIR"/scatterctl-"$pid"-* 2>/dev/null; }
no_private_dir_left() { [ -z "$(private_dirs)" ]; }
has_private_dir() { [ -n "$(private_dirs)" ]; }

# rows BACKEND STATUS: how many table rows have that backend and status.
rows() { grep -Ec -- "^[^ ]+ +[^ ]+ +$(re "$(backend_cell "$1")") +$2 " "$TMP/out"; }
# backend_cell LABEL: LABEL as the table's backend column shows it (README: a label longer
# than the column's 20 characters keeps its first 6 and last 11, with "..." between).
backend_cell() { if [ ${#1} -le 20 ]; then printf '%s' "$1"; else printf '%s...%s' "${1:0:6}" "${1: -11}"; fi; }
# re TEXT: TEXT as an extended regular expression matching itself.
re() { printf '%s' "$1" | sed 's#[][\.*^$+?(){}|]#\\&#g'; }

# use_numpy_python: exports SCATTERCTL_PYTHON (and PY) as the interpreter scatterctl would
# choose ($SCATTERCTL_PYTHON, the project's .venv/bin/python, python3); exits 77 (skipped)
# when it cannot import numpy.
use_numpy_python() {
  PY=${SCATTERCTL_PYTHON:-}
  [ -n "$PY" ] || { [ -x "$REPO/.venv/bin/python" ] && PY=$REPO/.venv/bin/python; } || PY=python3
  if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
    echo "skipped: '$PY' cannot import numpy (set SCATTERCTL_PYTHON, or run scripts/setup.sh --frameworks)"
    exit 77
  fi
  export SCATTERCTL_PYTHON=$PY
}
