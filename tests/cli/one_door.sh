#!/usr/bin/env bash
# One door in, one door out (docs/reliability.md): the findings of the third hostile probe, each
# as a check that failed before the fix. Outputs over inputs, report paths that are not files,
# writes out of their folder, answers nested deep, shrink's and fuzz's budgets, names and
# interrupts, a tolerance that overflows, a wrong `expected` blamed on the backend, signals.
# Usage: bash one_door.sh SCATTERCTL REPO (numpy in the chosen python, else skipped).
source "$(dirname "$0")/external_common.bash"
KEEP_GOING=1
use_numpy_python
K=$REPO/tests/python_kernels
cd "$TMP" || exit 1

# unchanged FILE SUM: FILE's checksum is still SUM.
sum() { sha256sum "$1" | cut -d' ' -f1; }
unchanged() { [ "$(sum "$1")" = "$2" ]; }

one_case good >good.json
printf '%s' '{"cases": [' >cases10.json
for i in $(seq 10); do
  [ "$i" = 1 ] || printf ',' >>cases10.json
  one_case "c$i" | sed "s/\"values\": \[9\]/\"values\": [$i]/; s/\[1, 9, 3\]/[1, 0, 3]/" >>cases10.json
done
printf ']}\n' >>cases10.json
cp "$K/drops_update.py" .
# The kernels here start from the right one, as tests/python_kernels/common.py does.
cat >common.py <<PY
import importlib.util
_spec = importlib.util.spec_from_file_location("numpy_kernel_example", "$REPO/examples/python-kernel/numpy_kernel.py")
right = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(right)
CAPABILITIES = right.CAPABILITIES
PY
DROPS=python:$TMP/drops_update.py

# 1, 16. shrink's output over its input, its own kernel, or where it cannot be written: refused
# before the search starts.
s=$(sum cases10.json)
ctl shrink cases10.json --case c3 --backend ref --out cases10.json
check "1 shrink --out over its case file: exit 2" rc_is 2
check "1 ... naming --out" err_has "--out.*also an input"
check "1 ... the 10 cases kept" unchanged cases10.json "$s"
cp good.json x.min.json
sed -i 's/"good"/"x"/' x.min.json
s=$(sum x.min.json)
ctl shrink x.min.json --backend ref
check "1 shrink's default output (x.min.json) over its input: refused" rc_is 2
check "1 ... the input kept" unchanged x.min.json "$s"
s=$(sum drops_update.py)
ctl shrink cases10.json --case c3 --backend "$DROPS" --out drops_update.py
check "1 shrink --out over the kernel's source: refused" rc_is 2
check "1 ... the source kept" unchanged drops_update.py "$s"
touch afile
ctl shrink cases10.json --case c3 --backend ref --out afile/x.json
check "16 shrink --out that cannot be written: exit 2 before any work" rc_is 2
check "16 ... no search ran" out_lacks "shrink:"

# 2, 17, 19. A case whose `expected` is wrong: 80,000 updates, --shrink-seconds 1.
cat >big.json <<'JSON'
{"name": "big80000", "op": "scatter_elements", "reduction": "add",
 "inputs": {"data": {"dtype": "float32", "shape": [80000], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 1}},
            "indices": {"dtype": "int64", "shape": [80000], "generate": {"kind": "indices", "seed": 2}},
            "updates": {"dtype": "float32", "shape": [80000], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 3}}},
 "expected": {"dtype": "float32", "shape": [80000], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 9}}}
JSON
began=$(date +%s%N)
ctl shrink big.json --backend ref --shrink-seconds 1
ms=$((($(date +%s%N) - began) / 1000000))
# 1.2 s on a quiet 2-core machine; 10 s leaves room for the sanitizers and a loaded CI (c1ff410: 56 s).
check "2 shrink of 80,000 updates, --shrink-seconds 1: ends within 10 s ($ms ms)" test "$ms" -lt 10000
check "17 a failure only the case's expected made: not called minimal, exit 1" rc_is 1
check "17 ... and nothing written" test ! -e big80000.min.json
check "19 the reference's own output is not blamed: the expected is" out_has "the case's \`expected\` disagrees with the spec"
check "19 ... and no cause named" out_lacks "cause: [a-z_]+"
ctl shrink big.json --backend ref --shrink-seconds nan
check "22 --shrink-seconds nan: refused (exit 2)" rc_is 2

# 3. An expect_error "index" case the backend accepts: shrunk without the spec's trace (which
# would scatter outside the data).
cp "$K/returns_data.py" .
ctl shrink "$REPO/cases/errors/gen_err_index_nd_out_of_range.json" --backend "python:$TMP/returns_data.py" --out oob.json
check "3 shrink of an accepted out-of-range case: exit 0, no crash" rc_is 0
check "3 ... its minimal case written" test -s oob.json
check "3 ... without the trace" out_has "no trace: the spec refuses this case"

# 18, 23. A kernel that hangs on any case of more than one update: --timeout bounds each call;
# SIGTERM keeps the smallest case so far.
cat >hangs.py <<'PY'
import time
from common import CAPABILITIES, right  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    if updates.size > 1:
        time.sleep(100)
    return right.scatter(op, data, indices[:0], updates[:0], **attrs)
PY
cat >four.json <<'JSON'
{"name": "four", "op": "scatter_elements",
 "inputs": {"data": {"dtype": "float32", "shape": [8], "values": [0, 0, 0, 0, 0, 0, 0, 0]},
            "indices": {"dtype": "int64", "shape": [4], "values": [0, 1, 2, 3]},
            "updates": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]}}}
JSON
LIMIT=60 ctl shrink four.json --backend "python:$TMP/hangs.py" --timeout 1 --shrink-seconds 5 --out four.min.json
check "18 shrink --timeout 1 on a kernel that hangs: done in bounded time ($seconds s)" test "$seconds" -lt 30
check "18 ... having shrunk (not refused as a usage error)" out_has "^shrink: "
cat >slow.py <<'PY'
import time
from common import CAPABILITIES, right  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    time.sleep(0.3)
    return right.scatter(op, data, indices[:-1], updates[:-1], **attrs)
PY
start shrink big.json --backend "python:$TMP/slow.py" --shrink-seconds 60 --out slow.min.json
sleep 4
t0=$(date +%s)
kill -TERM "$pid"
finish
check "23 SIGTERM during shrink: exit 130" rc_is 130
check "23 ... within seconds of it ($seconds s)" test "$seconds" -lt 8
check "23 ... the smallest case so far kept" test -s slow.min.json.partial

# 4, 5, 14, 15. fuzz: its folder checked first, reproducers named for their case and backend.
LIMIT=120
ctl fuzz --backend "$DROPS" --iterations 5 --out afile --json fz.json
check "4 fuzz --out that is a file: exit 2 at once" rc_is 2
check "4 ... naming --out" err_has "--out.*not a folder"
ctl fuzz --backend "$DROPS" --iterations 5 --out same --json same
check "14 fuzz --out X --json X: refused" rc_is 2
cat >adds_one.py <<'PY'
from common import CAPABILITIES, right  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    return right.scatter(op, data, indices, updates, **attrs) + 1
PY
ctl fuzz --backend "python:$TMP/returns_data.py,python:$TMP/adds_one.py" --iterations 3 --shrink-seconds 2 --out ff --json ff.json
check "5 two failing backends: exit 1" rc_is 1
"$PY" - ff.json >minimal.txt <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["failures"]:
    print(f["case"], f["backend"], f["minimal_file"])
PY
check "5 each backend's failure of a case has a minimal case file of its own" \
  test "$(awk '{print $1, $3}' minimal.txt | sort -u | wc -l)" -eq "$(wc -l <minimal.txt)" -a "$(wc -l <minimal.txt)" -ge 2
while read -r case backend minimal; do
  "$BIN" run "$minimal" --backend "$backend" >/dev/null 2>&1
  rc=$?
  check "5 ... $(basename "$minimal") fails on its own backend" rc_is 1
done <minimal.txt
cat >slowfirst.py <<'PY'
import time
from common import CAPABILITIES, right  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    if updates.size > 1:
        time.sleep(0.5)
        return data.copy()
    return right.scatter(op, data, indices, updates, **attrs)
PY
start fuzz --backend "python:$TMP/slowfirst.py" --iterations 50 --shrink-seconds 60 --out sf --json sf.json
for _ in $(seq 100); do grep -q "^FAIL" "$TMP/out" && break; sleep 0.2; done
sleep 1
kill -TERM "$pid"
finish
check "15 SIGTERM during a fuzz shrink: exit 130" rc_is 130
check "15 ... the failure found is in the report, grouped" "$PY" - sf.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["failures"] and r["summary"]["causes"], r
PY

# 13. fuzz with --out on a full disk (a 64 KB tmpfs of a private mount namespace): each case
# file it cannot write is said, the run goes on, and --json (on a disk with room) is written;
# exit 1, failures found. Where unshare -rm is not permitted, said and not checked. The box is
# off here: what is tested is fuzz's writes, and the box's cgroup and Landlock layers belong to
# the namespace outside (as a user other than root they may not be set up in this one).
if unshare -rm true 2>/dev/null; then
  mkdir small
  cat >in_small.sh <<SH
#!/bin/sh
SCATTERCTL_BOX=off exec unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs "\$0" && exec "\$@"' "$TMP/small" "$BIN" "\$@"
SH
  chmod +x in_small.sh
  real_bin=$BIN
  BIN=$TMP/in_small.sh
  ctl fuzz --backend "python:$TMP/adds_one.py" --iterations 40 --seed 1 --shrink-seconds 1 --out small/ff --json full.json
  BIN=$real_bin
  check "13 fuzz --out on a full disk: exit 1 (failures found), not 2" rc_is 1
  check "13 ... each case file not written is said" err_has "not written: .*(No space left|space)"
  check "13 ... --json written, every failure in it" "$PY" - full.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["summary"]["cases"] == 40 and r["summary"]["failed"] == len(r["failures"]) > 10, r["summary"]
PY
else
  echo "skip: 13 (a full disk): unshare -rm is not permitted here"
fi

# 6. An answer nested 100k deep, on the box's answer channel: an ERROR row, never a crash.
cat >deep.py <<'PY'
import os
from common import CAPABILITIES, right  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    os.write(4, b'{"id": ' + b"[" * 100000 + b"]" * 100000 + b', "signal": ' + b"[" * 100000 + b"]" * 100000 + b"}\n")
    return right.scatter(op, data, indices, updates, **attrs)
PY
ctl run good.json --backend "python:$TMP/deep.py,ref" --json deep.json
check "6 a kernel answering 100k deep: scatterctl is not killed (exit 1)" rc_is 1
check "6 ... and writes its report" test -s deep.json

# 7. compare with a report nested 200k deep.
ctl bench good.json --backend ref --max-seconds 0.05 --json b1.json
"$PY" - b1.json <<'PY'
import json, sys
text = open(sys.argv[1]).read()
open("deep-report.json", "w").write(text.replace('"benchmarks": [', '"benchmarks": [' + "[" * 200000 + "]" * 200000 + ",", 1))
PY
ctl compare b1.json deep-report.json
check "7 compare of a report nested 200k deep: refused, no crash" test "$rc" -ge 2 -a "$rc" -le 3
check "7 ... in a short message" test "$(wc -c <"$TMP/err")" -lt 4000

# 8. An expectations file nested 100k deep, in the one place the schema reads last: an entry
# right in every other field (a real one), its first reproduction's output nested.
mkdir exp
"$PY" - "$REPO/lib/expectations/onnxruntime.json" exp/deep.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
entry = next(e for e in d["expectations"] if e.get("model") and e.get("reproduced_by"))
entry["reproduced_by"][0]["output"] = "DEEP"
d["expectations"] = [entry]
deep = "[" * 100000 + "]" * 100000
open(sys.argv[2], "w").write(json.dumps(d).replace('"DEEP"', deep, 1))
PY
ctl expectations --check good.json --expectations exp
check "8 expectations --check of a file nested 100k deep: refused, no crash" test "$rc" -ge 1 -a "$rc" -le 3
check "8 ... naming the nesting" err_has "nesting deeper than"
ctl run good.json --backend ref --expectations exp
check "8 run --expectations of it: refused, no crash" test "$rc" -ge 1 -a "$rc" -le 3

# 9. Reports over the command's other inputs.
mkdir ex2
cp "$REPO"/lib/expectations/*.json ex2/ 2>/dev/null
one=$(ls ex2/*.json | head -1)
s=$(sum "$one")
ctl run good.json --backend ref --expectations "$one" --json "$one"
check "9 run --json over the --expectations file: refused" rc_is 2
check "9 ... kept" unchanged "$one" "$s"
s=$(sum drops_update.py)
ctl run good.json --backend "$DROPS" --junit drops_update.py
check "9 run --junit over the kernel's source: refused" rc_is 2
check "9 ... kept" unchanged drops_update.py "$s"
if [ -n "${SCATTERCTL_EXAMPLE_PLUGIN:-}" ]; then
  cp "$SCATTERCTL_EXAMPLE_PLUGIN" plugin.so
  s=$(sum plugin.so)
  ctl bench good.json --backend plugin:plugin.so --json plugin.so
  check "9 bench --json over the plugin: refused" rc_is 2
  check "9 ... kept" unchanged plugin.so "$s"
fi

# 10. Report paths that are no files: a FIFO, a link, a device node of our own.
mkfifo fifo
ctl run good.json --backend ref --json fifo
check "10 --json a FIFO: refused" test "$rc" -ne 0
check "10 ... the FIFO still one" test -p fifo
echo keep >target
ln -s target link
ctl run good.json --backend ref --json link
check "10 --json a link: refused" test "$rc" -ne 0
check "10 ... the link and its target kept" test -L link -a "$(cat target)" = keep
if mknod null c 1 3 2>/dev/null; then
  ctl run good.json --backend ref --markdown null
  check "10 --markdown a device: refused" test "$rc" -ne 0
  check "10 ... the node kept" test -c null
fi
ctl run good.json --backend ref --json - -q
check "10 --json - streams the report to stdout" out_has '"results"'

# 11. Names that would leave their folder, and links planted in it.
sed 's/"good"/".."/' good.json >dotdot.json
mkdir -p d/out
ctl dump dotdot.json --out d/out
check "11 dump of a case named '..': written inside --out" test -z "$(ls d | grep -v out)"
sed 's/"good"/"bad"/; s/\[1, 9, 3\]/[1, 0, 3]/' good.json >bad.json
mkdir -p sf2/bad@ref
echo keep >planted
ln -s "$TMP/planted" sf2/bad@ref/actual.npy
ctl run bad.json --backend ref --save-failures sf2
check "11 --save-failures through a planted link: the target kept" test "$(cat planted)" = keep

# 12. A float64 sum past DBL_MAX: its exact answer 5 (any order gives 0 or 5); NaN is no answer.
cat >tol.json <<'JSON'
{"name": "tol", "op": "scatter_elements", "reduction": "add",
 "inputs": {"data": {"dtype": "float64", "shape": [1], "values": [0]},
            "indices": {"dtype": "int64", "shape": [3], "values": [0, 0, 0]},
            "updates": {"dtype": "float64", "shape": [3], "values": [1e308, -1e308, 5]}}}
JSON
for bad in nan inf -inf 1e307; do
  cat >"tol_$bad.py" <<PY
import numpy as np
from common import CAPABILITIES  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    return np.full_like(data, float("$bad"))
PY
  ctl run tol.json --backend "python:$TMP/tol_$bad.py"
  check "12 a tolerance that overflows passes no $bad" rc_is 1
done
cat >tol_zero.py <<'PY'
import numpy as np
from common import CAPABILITIES  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    return np.zeros_like(data)
PY
ctl run tol.json --backend "python:$TMP/tol_zero.py"
check "12 ... and passes 0, an order's honest answer" rc_is 0

# 20. Signals without a handler of their own stop the run with its reports; past `ulimit -f` a
# report fails with exit 7, not SIGXFSZ.
mkdir many
for i in $(seq 40); do one_case "m$i" >"many/m$i.json"; done
cat >slow_right.py <<'PY'
import time
from common import CAPABILITIES, right  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    time.sleep(0.1)
    return right.scatter(op, data, indices, updates, **attrs)
PY
for sig in USR1 QUIT ALRM; do
  start run many --backend "python:$TMP/slow_right.py" --json "sig$sig.json"
  sleep 2
  kill -"$sig" "$pid"
  finish
  check "20 SIG$sig: the run stops with exit 130" rc_is 130
  check "20 ... and its report written" test -s "sig$sig.json"
done
(ulimit -f 1; "$BIN" run "$REPO/cases/scatter_nd" --backend ref --json xfsz.json >/dev/null 2>xfsz.err)
rc=$?
check "20 ulimit -f: exit 7 (a report not written), not killed by SIGXFSZ (exit $rc)" rc_is 7

# 21. Parts run with other options that change results are not one run.
ctl run many --backend ref --shard 1/2 --json part1.json
ctl run many --backend ref --shard 2/2 --no-expectations --timeout 5 --json part2.json
ctl merge part1.json part2.json
check "21 parts run with other --no-expectations or --timeout: not merged" test "$rc" -ne 0
check "21 ... naming what differs" err_has "expectations|timeout"

# A fourth probe, the same classes by other doors (docs/reliability.md, "The fourth probe").
# P1. A bound that is not finite is none: add onto inf, a kernel answering 5 where the spec's is inf.
cat >inf_add.json <<'JSON'
{"name": "inf_add", "op": "scatter_elements", "reduction": "add",
 "inputs": {"data": {"dtype": "float32", "shape": [2], "values": ["inf", 1]},
            "indices": {"dtype": "int64", "shape": [2], "values": [0, 0]},
            "updates": {"dtype": "float32", "shape": [2], "values": [1, 2]}}}
JSON
cat >five_first.py <<'PY'
from common import CAPABILITIES, right  # noqa: F401

def scatter(op, data, indices, updates, **attrs):
    out = right.scatter(op, data, indices, updates, **attrs)
    out.reshape(-1)[0] = 5
    return out
PY
ctl run inf_add.json --backend "ref,python:$TMP/five_first.py"
check "P1 5 where the spec's sum is inf: FAILED (exit 1), never within an infinite tolerance" rc_is 1

# P2. A number past a double's range in a report: refused (exit 3), never an abort.
sed 's/"benchmarks": \[/"huge": 1e400, "benchmarks": [/' b1.json >b400.json
ctl compare b1.json b400.json
check "P2 compare of a report holding 1e400: exit 2 or 3, no abort" test "$rc" -ge 2 -a "$rc" -le 3
check "P2 ... in a short message" err_has "past a double's range"

# P3. The .npy files a case names are inputs: a report over one is refused, and dump writes none over one.
"$PY" -c "import numpy; numpy.save('keep.npy', numpy.arange(3, dtype=numpy.int32))"
sed 's/"values": \[1, 2, 3\]/"file": "keep.npy"/' good.json >npycase.json
s=$(sum keep.npy)
ctl run npycase.json --backend ref --json keep.npy
check "P3 run --json over a .npy the case names: refused (exit 2)" rc_is 2
check "P3 ... kept" unchanged keep.npy "$s"
mkdir -p dumped/good
cp keep.npy dumped/good/reference.npy
sed 's#"file": "keep.npy"#"file": "dumped/good/reference.npy"#' npycase.json >npycase2.json
s=$(sum dumped/good/reference.npy)
ctl dump npycase2.json --out dumped
check "P3 dump over the .npy its case names: refused at the write (exit 3)" rc_is 3
check "P3 ... kept" unchanged dumped/good/reference.npy "$s"

# P4. Every file of an --expectations folder is an input.
mkdir exfolder
cp "$REPO/lib/expectations/onnxruntime.json" exfolder/
s=$(sum exfolder/onnxruntime.json)
ctl run good.json --backend ref --expectations exfolder --json exfolder/onnxruntime.json
check "P4 --json over a file of the --expectations folder: refused (exit 2)" rc_is 2
check "P4 ... kept" unchanged exfolder/onnxruntime.json "$s"

# P5. The interpreter of $SCATTERCTL_PYTHON is an input.
printf '#!/bin/sh\nexec %s "$@"\n' "$PY" >pyw
chmod +x pyw
s=$(sum pyw)
SCATTERCTL_PYTHON=$TMP/pyw ctl run good.json --backend "python:$TMP/drops_update.py" --junit pyw
check "P5 --junit over \$SCATTERCTL_PYTHON: refused (exit 2)" rc_is 2
check "P5 ... kept" unchanged pyw "$s"

# P6. A case's folder that is a link (to a folder outside --out) is never written through.
mkdir linked victim
ln -s ../victim linked/good
ctl dump good.json --out linked
check "P6 dump into a case folder that is a link: refused (exit 3)" rc_is 3
check "P6 ... nothing written outside --out" test -z "$(ls victim)"

# P7. Two names cut at 200 bytes never share a folder.
long=$(printf 'n%.0s' $(seq 230))
{ printf '{"cases": ['; one_case "${long}a"; printf ','; one_case "${long}b"; printf ']}\n'; } >two_long.json
ctl dump two_long.json --out twolong
check "P7 dump of two cases whose names share 230 bytes: two folders" test "$(ls twolong | wc -l)" -eq 2

# P8. --shard N past an int, and --timeout 1e308: refused, and a limit of 30 years.
ctl run good.json --backend ref --shard 1/4294967297
check "P8 --shard 1/4294967297: exit 2, never a shard of everything" rc_is 2
ctl run good.json --backend "python:$TMP/slow_right.py" --timeout 1e308
check "P8 --timeout 1e308: no time-out at once (exit 0)" rc_is 0

# P9. bench --list reads the cases too: its --json goes through the same door.
s=$(sum npycase.json)
ctl bench npycase.json --list --json npycase.json
check "P9 bench --list --json over its case file: refused (exit 2)" rc_is 2
check "P9 ... kept" unchanged npycase.json "$s"
# A name '.' made safe and a case named as that made-safe name: two folders still ('~').
{ printf '{"cases": ['; one_case "."; printf ','; one_case "_."; printf ']}\n'; } >dots.json
ctl dump dots.json --out dotted
check "P7 dump of cases '.' and '_.': two folders" test "$(ls dotted | wc -l)" -eq 2

end_checks "one_door"
