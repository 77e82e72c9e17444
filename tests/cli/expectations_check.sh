#!/usr/bin/env bash
# expectations --check (docs/backends.md, "Divergence models"): every bundled entry's model
# reproduces the outputs its minimal cases recorded; a wrong model, a missing case, or a case
# whose recorded output is the spec's fails, naming the entry and the case; an entry that
# could cover wrong outputs with neither a model nor named cases is refused when loaded.
# Usage: expectations_check.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"
KEEP_GOING=1
ov=$REPO/lib/expectations/openvino.json

ctl expectations --check "$REPO/cases"
check "the bundled catalogue: exit 0" rc_is 0
check "... no entry failed" out_has "^expectations: [0-9]+ reproduced by their models, [0-9]+ unmodelled, 0 failed$"

# mutate NAME PYTHON: a copy of openvino.json changed by PYTHON (on the entry list `es`).
mutate() {
  python3 - "$ov" "$TMP/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
es = {e["id"]: e for e in d["expectations"]}
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
# refused NAME CODE WHAT PYTHON PATTERN...: the catalogue changed by PYTHON is refused with exit
# CODE, its output (stdout for 1, stderr for 2) matching each PATTERN.
refused() {
  local name=$1 code=$2 what=$3 change=$4 pattern
  shift 4
  mutate "$name" "$change"
  ctl expectations --check "$REPO/cases" --expectations "$TMP/$name.json"
  check "$what: exit $code" rc_is "$code"
  for pattern in "$@"; do
    if [ "$code" -eq 2 ]; then check "... $pattern" err_has "$pattern"; else check "... $pattern" out_has "$pattern"; fi
  done
}
refused wrong_model 1 "a model that does not give the recorded output" \
  'es["ov-cpu-minmax-drops-nan-update-keeps-existing-zero"]["model"] = {"min_max": "take_update_unless_worse"}' \
  "^FAILED +openvino ov-cpu-minmax-drops-nan-update-keeps-existing-zero" \
  "case 'ov_se_max_nan_update': the model gives nan at \[0\], the backend gave 1"
refused spec_output 1 "a recorded output that is the spec's" \
  'es["ov-cpu-float16-accumulates-in-float32"]["reproduced_by"][0]["output"] = [2048]' "the output seen is the spec's"
refused no_case 1 "a minimal case that does not exist" \
  'es["ov-cpu-float16-accumulates-in-float32"]["reproduced_by"][0]["case"] = "no_such_case"' \
  "case 'no_such_case': no such case among those loaded"
refused unmodelled 2 "an entry for wrong outputs with neither model nor cases" \
  'e = es["ov-cpu-float16-accumulates-in-float32"]; del e["model"]; del e["reproduced_by"]' \
  "expectations\[ov-cpu-float16-accumulates-in-float32\]\.model: missing: .*or the cases it names"
refused bad_rule 2 "a float computed in an integer type" \
  'es["ov-cpu-float16-accumulates-in-float32"]["model"] = {"compute_in": {"float16": "int32"}}' \
  "model\.compute_in\.float16: float16 cannot be computed in int32"

end_checks "expectations --check"
