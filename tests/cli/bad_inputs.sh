#!/usr/bin/env bash
# Malformed inputs must never break a run: every file of tests/bad_inputs/ (listed with
# its error code and message in tests/bad_inputs/expected.tsv), and the ones too big or
# too odd to commit (made here: deep nesting, 50 MB strings, link loops, a directory
# named x.json, a FIFO as a case file and as a .npy source, an unreadable file and
# directory, checked as nobody when run as root), must give exit 3 on `validate` and on
# `run`, with one line naming the file, the code and the field; and a good case beside
# the bad file must still run and pass. A crash, a hang (60 s) or a flood of output fails.
# tests/bad_inputs/fuzz-regressions/* (inputs that once crashed the fuzzer) must load
# without a crash, whatever their verdict.
# Usage: bash bad_inputs.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/common.bash"
CORPUS=$REPO/tests/bad_inputs
KEEP_GOING=1
# A time limit on each run; RUN_AS drops root for the unreadable-file checks. The checks
# below are bash builtins: some 300 runs must stay within a few seconds.
LIMIT=60
checked=0

# small_output: stdout and stderr together stay under 100 kB (no input echoed back whole).
small_output() {
  local out err
  read -r -d '' -N 100000 out <"$TMP/out"
  read -r -d '' -N 100000 err <"$TMP/err"
  [ $((${#out} + ${#err})) -lt 100000 ]
}
# has_line STRING...: one line of stdout or stderr holds every STRING.
has_line() {
  local f line s
  for f in "$TMP/out" "$TMP/err"; do
    while IFS= read -r line || [ -n "$line" ]; do
      for s in "$@"; do [[ $line == *"$s"* ]] || continue 2; done
      return 0
    done <"$f"
  done
  return 1
}
# check_output LABEL WHAT CODE TEXT NAME: the last command exited 3 and one line names
# [CODE], the file NAME and TEXT (the field and values).
check_output() {
  local label=$1 what=$2 code=$3 text=$4 name=$5
  if [ "$rc" -ne 3 ]; then
    fail "$label: $what: exit $rc, want 3"
  elif ! small_output; then
    fail "$label: $what: 100 kB of output or more (an input echoed back whole?)"
  elif ! has_line "[$code]" "$name" "$text"; then
    fail "$label: $what: no line with [$code], '$name' and '$text'"
  fi
}

# One directory holds a good case; each bad file joins it for one run, then leaves.
BESIDE="$TMP/beside"
mkdir "$BESIDE"
ln -s "$CORPUS/npy" "$BESIDE/npy"  # for `file` sources; a linked directory is not walked
GOOD=$(one_case good_neighbour)
printf '%s\n' "$GOOD" >"$BESIDE/good_neighbour.json"
# check_neighbour LABEL CODE TEXT NAME DIR: `run DIR` reports the bad file and passes the good case.
check_neighbour() {
  local label=$1 code=$2 text=$3 name=$4 dir=$5
  ctl run --backend ref "$dir"
  check_output "$label" "run beside a good case" "$code" "$text" "$name"
  has_line good_neighbour passed || fail "$label: the good case beside it did not pass"
  local last=""
  while IFS= read -r line; do last=$line; done <"$TMP/out"
  [[ $last =~ ^scatterctl:\ 1\ passed,\ [1-9][0-9]*\ failed,\ 0\ skipped$ ]] ||
    fail "$label: the closing line does not count the good pass and the bad file"
}
# expect_bad FILE CODE TEXT [big]: validate and run on the file alone, then beside a
# good case (big: no run alone, the run beside it is enough and each costs a second).
expect_bad() {
  local file=$1 code=$2 text=$3 big=${4:-}
  local name=${file##*/}
  checked=$((checked + 1))
  ctl validate "$file"
  check_output "$name" validate "$code" "$text" "$name"
  if [ -z "$big" ]; then
    ctl run --backend ref "$file"
    check_output "$name" run "$code" "$text" "$name"
  fi
  ln -s "$file" "$BESIDE/$name"
  check_neighbour "$name" "$code" "$text" "$name" "$BESIDE"
  rm "$BESIDE/$name"
}

# 1. The committed corpus: every file is listed, every listed file exists.
listed=$(grep -v '^#' "$CORPUS/expected.tsv" | cut -f1 | sort)
present=$(cd "$CORPUS" && ls -1 -- *.json | sort)
if [ "$listed" != "$present" ]; then
  echo "FAIL: tests/bad_inputs/*.json and expected.tsv disagree:"
  diff <(echo "$listed") <(echo "$present")
  failures=$((failures + 1))
fi
while IFS=$'\t' read -r file code text _; do
  case "$file" in '#'* | '') continue ;; esac
  expect_bad "$CORPUS/$file" "$code" "$text"
done <"$CORPUS/expected.tsv"

# 2. Made here: too big to commit.
gen="$TMP/gen"
mkdir "$gen"
many() { head -c "$1" /dev/zero | tr '\0' "$2"; }  # many N CHAR: CHAR N times
CASE_HEAD='{"name": "bad_input", "op": "scatter_elements", "inputs": {"data": {"dtype": "int32", "shape": [3], "values": '
CASE_TAIL='}, "indices": {"dtype": "int64", "shape": [1], "values": [1]}, "updates": {"dtype": "int32", "shape": [1], "values": [9]}}}'
{ many 100000 '['; many 100000 ']'; } >"$gen/json-deep-arrays.json"
{ for _ in $(seq 1000); do printf '{"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": '; done
  printf 1; many 10000 '}'; } >"$gen/json-deep-objects.json"
{ printf '%s' "$CASE_HEAD"; many 100000 '['; many 100000 ']'; printf '%s' "$CASE_TAIL"; } >"$gen/json-deep-values.json"
{ printf '%s[1, ' "$CASE_HEAD"; for _ in $(seq 10000); do printf '{"a": [{"a": [{"a": [{"a": [{"a": ['; done
  for _ in $(seq 10000); do printf ']}]}]}]}]}'; done; printf ', 3]%s' "$CASE_TAIL"; } >"$gen/json-deep-object-element.json"
many 100000 '[' >"$gen/json-deep-unterminated.json"
{ printf '%s"' "$CASE_HEAD"; many 50000000 a; printf '"%s' "$CASE_TAIL"; } >"$gen/values-50mb-string.json"
{ printf '{"name": "bad '; many 1000000 a; printf '", "op": "scatter_nd"}'; } >"$gen/schema-1mb-name.json"
{ printf '{"name": "bad_input", "'; many 1000000 k; printf '": 1}'; } >"$gen/schema-1mb-key.json"
{ printf '%s[' "$CASE_HEAD"; many 3000000 x | sed 's/x/1,/g'; printf '1]%s' "$CASE_TAIL"; } >"$gen/values-huge-array.json"
expect_bad "$gen/json-deep-arrays.json" json "nesting deeper than"
expect_bad "$gen/json-deep-objects.json" json "nesting deeper than"
expect_bad "$gen/json-deep-values.json" json "nesting deeper than"
expect_bad "$gen/json-deep-object-element.json" json "nesting deeper than"
expect_bad "$gen/json-deep-unterminated.json" json "nesting deeper than"  # depth is refused before parsing
expect_bad "$gen/values-50mb-string.json" values "inputs.data.values = \"aaaa" big
expect_bad "$gen/schema-1mb-name.json" schema "name = \"bad aaaa"
expect_bad "$gen/schema-1mb-key.json" schema "unknown key 'kkkk"
expect_bad "$gen/values-huge-array.json" values "has 3000001 elements, shape [3] needs 3"

# 3. Made here: what git cannot hold. Each beside a good case, then alone.
walk="$TMP/walk"
mkdir -p "$walk/x.json" "$walk/sub"
ln -s .. "$walk/sub/up"                 # a directory loop
ln -s ../sub "$walk/sub/again"
ln -s self.json "$walk/self.json"       # a link to itself
ln -s loop_b.json "$walk/loop_a.json"   # two links to each other
ln -s loop_a.json "$walk/loop_b.json"
ln -s nowhere.json "$walk/dangling.json"
mkfifo "$walk/fifo.json"                # reading it would block forever
printf '%s\n' "$GOOD" >"$walk/good_neighbour.json"
ctl run --backend ref "$walk"
checked=$((checked + 1))
for f in self.json loop_a.json loop_b.json; do
  has_line "[io]" "$f" "Too many levels of symbolic links" || fail "walk: no [io] line for the link loop $f"
done
has_line "[io]" "dangling.json" "No such file" || fail "walk: no [io] line for the dangling link"
has_line "[io]" "x.json" "is a directory" || fail "walk: no [io] line for the directory x.json"
has_line "[io]" "fifo.json" "not a regular file" || fail "walk: no [io] line for the FIFO"
[ "$rc" -eq 3 ] || fail "walk: exit $rc, want 3"
grep -Eq '^good_neighbour +.*passed' "$TMP/out" || fail "walk: the good case did not pass"
[ "$(grep -c good_neighbour "$TMP/out")" -eq 1 ] || fail "walk: the good case ran more than once (a linked directory followed?)"
for f in x.json self.json; do  # (a FIFO named on the command line is read, as <(...) must be)
  ctl validate "$walk/$f"
  check_output "$f" "validate, named alone" io "" "$f"
done
ctl validate "$walk/sub/up"  # a linked directory named on the command line is walked once
[ "$rc" -eq 3 ] && grep -q 'good_neighbour' "$TMP/out" || fail "sub/up: exit $rc, want 3 with the good case listed"
ctl validate "$TMP/does_not_exist.json"
check_output "does_not_exist.json" validate io "no such file or directory" "does_not_exist.json"

# A `file` source naming a FIFO (absolute: the file is linked elsewhere to run beside
# the good case): opening it would block forever.
fifo_case="$TMP/fifo_source"
mkdir "$fifo_case"
mkfifo "$fifo_case/data.npy"
printf '%s\n' '{"name": "fifo_source", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "int32", "shape": [3], "file": "'"$fifo_case/data.npy"'"},
            "indices": {"dtype": "int64", "shape": [1], "values": [1]},
            "updates": {"dtype": "int32", "shape": [1], "values": [9]}}}' >"$fifo_case/io-npy-fifo.json"
expect_bad "$fifo_case/io-npy-fifo.json" io "inputs.data.file: cannot read"

# Unreadable: a file, and a directory whose cases must not vanish from the walk
# unreported. Root reads anything: as root these run as nobody (setpriv), or are
# skipped with a message where that is impossible.
if [ "$(id -u)" -eq 0 ]; then
  nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod 711 "$TMP"
  chmod -R a+rX "$BESIDE"
  if "${nobody[@]}" test -x "$BIN" 2>/dev/null; then RUN_AS=("${nobody[@]}"); fi
fi
if [ "$(id -u)" -eq 0 ] && [ ${#RUN_AS[@]} -eq 0 ]; then
  echo "skipped: the unreadable-file checks (running as root, chmod 000 does not stop reads, and setpriv cannot drop to nobody)"
else
  locked="$TMP/locked"
  mkdir -m 755 "$locked" "$locked/sub"
  printf '%s\n' "$GOOD" >"$locked/io-unreadable.json"
  chmod 000 "$locked/io-unreadable.json"
  expect_bad "$locked/io-unreadable.json" io "Permission denied"
  printf '%s\n' "${GOOD/good_neighbour/hidden_case}" >"$locked/sub/hidden_case.json"
  chmod 000 "$locked/sub"
  ctl validate "$locked"
  checked=$((checked + 1))
  [ "$rc" -eq 3 ] || fail "unreadable directory: exit $rc, want 3"
  has_line "[io]" "$locked/sub" "cannot list: Permission denied" || fail "unreadable directory: no [io] line naming it"
  has_line "[io]" "io-unreadable.json" "Permission denied" || fail "unreadable directory: no [io] line for the unreadable file beside it"
  RUN_AS=()
fi

# 4. Inputs the fuzzer once crashed on: any verdict, but no crash and no hang.
for f in "$CORPUS"/fuzz-regressions/*; do
  [ -f "$f" ] || continue
  checked=$((checked + 1))
  cp "$f" "$TMP/regression.json"
  for cmd in validate run; do
    ctl "$cmd" "$TMP/regression.json"
    case "$rc" in 0 | 1 | 3) ;; *) fail "fuzz-regressions/$(basename "$f"): $cmd exited $rc (crash or hang)" ;; esac
  done
done

end_checks "$checked inputs checked"
