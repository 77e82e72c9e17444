#!/usr/bin/env bash
# scatterctl import (docs/case-format.md, "Cases from a model"): an ONNX model with a ScatterND
# (constant indices and updates, reduction add) and a ScatterElements (inputs from the graph,
# reduction max) on a dynamic dimension:
# - without --dim, both nodes are skipped naming the dimension to give (exit 1, nothing written);
# - with it, two cases named after the nodes, saying which inputs are the model's, which pass
#   on ref and cpu;
# - the same model as OpenVINO IR (where openvino imports), its dimension named PARAMETER.AXIS;
# - a model without a scatter node exits 4, a missing or unreadable model 2, an interpreter that
#   cannot start 5.
# Skipped (exit 77) when the chosen python cannot import onnx and numpy.
# Usage: bash import.sh /path/to/scatterctl /path/to/repo
source "$(dirname "$0")/external_common.bash"

use_numpy_python
"$PY" -c 'import onnx' >/dev/null 2>&1 || { echo "skipped: '$PY' cannot import onnx (scripts/setup.sh --frameworks)"; exit 77; }

"$PY" - "$TMP" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
out = sys.argv[1]
slots = numpy_helper.from_array(np.array([[0], [2], [0]], dtype=np.int64), "kv_slots")
new = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "kv_new")
nodes = [helper.make_node("ScatterND", ["x", "kv_slots", "kv_new"], ["y"], name="cache/write:0", reduction="add"),
         helper.make_node("ScatterElements", ["y", "e_idx", "e_upd"], ["z"], name="gnn.aggregate", axis=0,
                          reduction="max"),
         helper.make_node("Relu", ["z"], ["w"], name="relu")]
inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4]),
          helper.make_tensor_value_info("e_idx", TensorProto.INT64, [6, 4]),
          helper.make_tensor_value_info("e_upd", TensorProto.FLOAT, [6, 4])]
graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("w", TensorProto.FLOAT, ["N", 4])],
                          initializer=[slots, new])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
onnx.checker.check_model(model)
onnx.save(model, f"{out}/model.onnx")
plain = helper.make_graph([helper.make_node("Relu", ["x"], ["w"])], "g", inputs[:1],
                          [helper.make_tensor_value_info("w", TensorProto.FLOAT, ["N", 4])])
onnx.save(helper.make_model(plain, opset_imports=[helper.make_opsetid("", 18)]), f"{out}/plain.onnx")
PY

ctl import "$TMP/model.onnx" --out "$TMP/cases"
check "dynamic dimension without --dim: exit 1" rc_is 1
check "dynamic dimension without --dim: names the flag to give" out_has "^import: skipped node 'cache/write:0': data \('x'\) has the dynamic dimension 'N': give --dim N=VALUE$"
check "dynamic dimension without --dim: the summary" out_has '^import: 2 scatter nodes found, 0 written, 2 skipped$'

ctl import "$TMP/model.onnx" --out "$TMP/dims" --dim N=99999999999999999999
check "--dim past the 64-bit integers: exit 2" rc_is 2
check "... naming the flag" err_has "is not NAME=VALUE with VALUE in \[1, 2\^63 - 1\]"
check "... nothing written" test ! -e "$TMP/dims"
ctl import "$TMP/model.onnx" --out "$TMP/dims" --dim N=5 --dim N=6
check "--dim given twice: exit 2, naming both values" test "$rc" -eq 2 -a -n "$(grep 'given twice (5 and 6)' "$TMP/err")"

ctl import "$TMP/model.onnx" --out "$TMP/cases" --dim N=5
check "import: exit 0" rc_is 0
check "import: the summary" out_has '^import: 2 scatter nodes found, 2 written, 0 skipped$'
"$PY" - "$TMP/cases/model.json" <<'PY' || fail "the imported cases"
import json, sys
cases = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
assert set(cases) == {"cache_write_0", "gnn.aggregate"}, cases.keys()
nd, el = cases["cache_write_0"], cases["gnn.aggregate"]
assert nd["op"] == "scatter_nd" and nd["reduction"] == "add", nd
assert nd["inputs"]["data"]["shape"] == [5, 4] and "generate" in nd["inputs"]["data"], nd
assert nd["inputs"]["indices"]["values"] == [[0], [2], [0]], nd
assert "indices the model's constant" in nd["description"], nd["description"]
assert el["op"] == "scatter_elements" and el["reduction"] == "max" and el["axis"] == 0, el
assert el["inputs"]["indices"]["generate"]["kind"] == "indices", el
PY
ctl run "$TMP/cases" --backend ref,cpu
check "the imported cases pass on ref and cpu" last_line_is "scatterctl: 4 passed, 0 failed, 0 skipped"

# TensorScatter-24 (ONNX 1.19 on): a circular decode write with write_indices from the graph, and a
# prefill write without them (zeros); axis default -2 and mode kept.
if "$PY" -c 'import onnx, sys; sys.exit(onnx.defs.onnx_opset_version() < 24)' 2>/dev/null; then
  "$PY" - "$TMP" <<'PY'
import sys
import onnx
from onnx import TensorProto, helper
out = sys.argv[1]
nodes = [helper.make_node("TensorScatter", ["past", "new", "pos"], ["present"], name="layer0.k_cache", mode="circular"),
         helper.make_node("TensorScatter", ["present", "prompt"], ["prefilled"], name="layer0.prefill")]
f = lambda name, shape, t=TensorProto.FLOAT: helper.make_tensor_value_info(name, t, shape)
graph = helper.make_graph(nodes, "kv", [f("past", [2, 8, 16, 4]), f("new", [2, 8, 1, 4]),
                                        f("pos", [2], TensorProto.INT64), f("prompt", [2, 8, 5, 4])],
                          [f("prefilled", [2, 8, 16, 4])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)])
onnx.checker.check_model(model)
onnx.save(model, f"{out}/kv.onnx")
PY
  ctl import "$TMP/kv.onnx" --out "$TMP/kv"
  check "TensorScatter: two cases written" out_has '^import: 2 scatter nodes found, 2 written, 0 skipped$'
  "$PY" - "$TMP/kv/kv.json" <<'PY' || fail "the imported TensorScatter cases"
import json, sys
cases = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
assert set(cases) == {"layer0.k_cache", "layer0.prefill"}, cases.keys()
decode, prefill = cases["layer0.k_cache"], cases["layer0.prefill"]
assert decode["op"] == "tensor_scatter" and decode["mode"] == "circular" and decode["axis"] == 2, decode
assert decode["inputs"]["indices"]["shape"] == [2] and decode["inputs"]["indices"]["generate"]["kind"] == "indices", decode
assert prefill["mode"] == "linear" and "indices" not in prefill["inputs"], prefill
assert "no write_indices (zeros)" in prefill["description"], prefill["description"]
PY
  ctl run "$TMP/kv" --backend ref,cpu
  check "the imported TensorScatter cases pass on ref and cpu" last_line_is "scatterctl: 4 passed, 0 failed, 0 skipped"
else
  echo "note: the onnx of $PY predates opset 24; the TensorScatter checks are left out"
fi

if "$PY" -c 'import openvino' >/dev/null 2>&1; then
  "$PY" -c "import openvino as ov; ov.save_model(ov.convert_model('$TMP/model.onnx'), '$TMP/model_ir.xml')"
  ctl import "$TMP/model_ir.xml" --out "$TMP/ir"
  check "OpenVINO IR without --dim: names PARAMETER.AXIS" out_has "give --dim x\.0=VALUE$"
  ctl import "$TMP/model_ir.xml" --out "$TMP/ir" --dim x.0=5
  check "OpenVINO IR: exit 0, two cases" out_has '^import: 2 scatter nodes found, 2 written, 0 skipped$'
  ctl run "$TMP/ir" --backend ref,cpu
  check "OpenVINO IR: the cases pass on ref and cpu" last_line_is "scatterctl: 4 passed, 0 failed, 0 skipped"
else
  echo "note: openvino is not importable by $PY; the IR checks are left out"
fi

ctl import "$TMP/plain.onnx" --out "$TMP/none"
check "no scatter node: exit 4" rc_is 4
check "no scatter node: says so" err_has "has no scatter node"
ctl import "$TMP/missing.onnx" --out "$TMP/none"
check "a missing model: exit 2" rc_is 2
echo "not a model" >"$TMP/junk.onnx"
ctl import "$TMP/junk.onnx" --out "$TMP/none"
check "an unreadable model: exit 2" rc_is 2
check "an unreadable model: names it" err_has "junk.onnx: cannot read the model"
ctl import "$TMP/model.onnx" --out "$TMP/none" --python "$TMP/no-such-python"
check "an interpreter that cannot start: exit 5" rc_is 5

# Import trusts nothing it reads (docs/reliability.md, findings 12, 13, 18, 19 of the second
# probe): a node it cannot turn into a case is skipped with the reason and the others still
# become cases; nothing is written until every node is read; no file is overwritten that it did
# not just write (unless --force), nor written through a link; a truncated or empty model, or a
# weights file outside the model's folder, is not a model.
"$PY" - "$TMP" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
out = sys.argv[1]
f = lambda name, shape, t=TensorProto.FLOAT: helper.make_tensor_value_info(name, t, shape)
big = numpy_helper.from_array(np.arange(5000, dtype=np.float32), "big")
idx = numpy_helper.from_array(np.array([1, 2], dtype=np.int64), "idx")
upd = numpy_helper.from_array(np.array([7, 8], dtype=np.float32), "upd")
nodes = [helper.make_node("ScatterElements", ["big", "idx", "upd"], ["a"], name="first"),
         helper.make_node("ScatterElements", ["x", "i2", "u2"], ["b"], name="second", axis=1)]
graph = helper.make_graph(nodes, "g", [f("x", [4, 3]), f("i2", [2], TensorProto.INT64), f("u2", [2])],
                          [f("a", [5000]), f("b", [4, 3])], initializer=[big, idx, upd])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), f"{out}/partial.onnx")
bad = numpy_helper.from_array(np.array([[-7], [99]], dtype=np.int64), "bad")
graph = helper.make_graph([helper.make_node("ScatterND", ["x", "bad", "u"], ["y"], name="oob")], "g",
                          [f("x", [4, 3]), f("u", [2, 3])], [f("y", [4, 3])], initializer=[bad])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), f"{out}/oob.onnx")
if onnx.defs.onnx_opset_version() >= 24:
    graph = helper.make_graph([helper.make_node("TensorScatter", ["past"], ["present"], name="lonely")], "g",
                              [f("past", [2, 8, 16, 4])], [f("present", [2, 8, 16, 4])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)]), f"{out}/ts1.onnx")
whole = open(f"{out}/model.onnx", "rb").read()
open(f"{out}/cut.onnx", "wb").write(whole[:len(whole) - 6])  # its opset_import cut off
open(f"{out}/empty.onnx", "wb").write(b"")
PY
ctl import "$TMP/partial.onnx" --out "$TMP/partial"
check "a node the reader cannot take: exit 0, the other node written" out_has '^import: 2 scatter nodes found, 1 written, 1 skipped$'
check "a node the reader cannot take: skipped with the reason" out_has "^import: skipped node 'second': scatter_elements needs indices and updates of one shape and data's rank 2"
check "a node the reader cannot take: the other's .npy and case file" test -f "$TMP/partial/partial.json" -a -f "$TMP/partial/first.data.npy"
ctl import "$TMP/oob.onnx" --out "$TMP/oob"
check "constant indices out of range: the node's problem (exit 1)" rc_is 1
check "constant indices out of range: named" out_has "^import: skipped node 'oob': its constant indices are out of range: indices\[0,0\] = -7 is out of range \[-4, 3\] for data.shape\[0\] = 4$"
check "nothing written: no --out folder left behind" test ! -e "$TMP/oob"
if [ -f "$TMP/ts1.onnx" ]; then
  ctl import "$TMP/ts1.onnx" --out "$TMP/ts1"
  check "TensorScatter with one input: skipped, no traceback" out_has "^import: skipped node 'lonely': it has 1 input: TensorScatter needs past_cache and update$"
  check "TensorScatter with one input: no traceback" err_lacks "Traceback"
fi
touch "$TMP/a_file"
ctl import "$TMP/model.onnx" --out "$TMP/a_file" --dim N=5
check "--out naming a file: exit 2, named" err_has "--out .*a_file is there and is not a folder"
for bad in cut empty; do
  ctl import "$TMP/$bad.onnx" --out "$TMP/none"
  check "a $bad model: exit 2" rc_is 2
  check "a $bad model: not a model" err_has "$bad.onnx: not a model"
done
mkdir -p "$TMP/own" "$TMP/outside"
echo '{"my": "own case file"}' >"$TMP/own/model.json"
ctl import "$TMP/model.onnx" --out "$TMP/own" --dim N=5
check "an existing case file: exit 2" rc_is 2
check "an existing case file: --force named" err_has "own/model.json is there already: --force replaces it; nothing written"
check "an existing case file: left as it was" grep -q "own case file" "$TMP/own/model.json"
echo "precious" >"$TMP/outside/target.txt"
mkdir -p "$TMP/linked"
ln -s ../outside/target.txt "$TMP/linked/model.json"
ctl import "$TMP/model.onnx" --out "$TMP/linked" --dim N=5 --force
check "--force over a planted link: exit 0" rc_is 0
check "--force over a planted link: nothing written through it" grep -qx "precious" "$TMP/outside/target.txt"
check "--force over a planted link: the link replaced by the case file" test -f "$TMP/linked/model.json" -a ! -L "$TMP/linked/model.json"
mkdir -p "$TMP/keep/partial.json"
echo old >"$TMP/keep/first.data.npy"
ctl import "$TMP/partial.onnx" --out "$TMP/keep" --force
check "--force that cannot write one file: exit 2" rc_is 2
check "... the files it would have replaced are kept" grep -qx old "$TMP/keep/first.data.npy"
check "... and no temporary file is left" test -z "$(ls -A "$TMP/keep" | grep tmp)"
if "$PY" -c 'import openvino' >/dev/null 2>&1; then
  mkdir -p "$TMP/ov"
  cp "$TMP/model_ir.xml" "$TMP/ov/link.xml"
  cp "$TMP/model_ir.bin" "$TMP/outside/secret.bin"
  ln -s ../outside/secret.bin "$TMP/ov/link.bin"
  ctl import "$TMP/ov/link.xml" --out "$TMP/ov_out" --dim x.0=5
  check "IR weights through a link: exit 2" rc_is 2
  check "IR weights through a link: refused" err_has "link.bin are a link or not a regular file: refused"
fi
end_checks
