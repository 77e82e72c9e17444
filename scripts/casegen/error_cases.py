"""The catalogue's error cases: each breaks exactly one rule of the spec (checked by --verify)."""


def error_cases():
    """(file stem, case) pairs: each case breaks exactly one rule (checked by --verify)."""
    def t(dt, shape, values):
        return {"dtype": dt, "shape": shape, "values": values}

    def se(**kw):
        c = {"op": "scatter_elements", "axis": 1,
             "inputs": {"data": t("float32", [2, 3], [[1, 2, 3], [4, 5, 6]]),
                        "indices": t("int64", [2, 2], [[0, 1], [2, 0]]),
                        "updates": t("float32", [2, 2], [[-1, -2], [-3, -4]])}}
        c.update(kw)
        return c

    def nd(**kw):
        c = {"op": "scatter_nd",
             "inputs": {"data": t("float32", [2, 3], [[1, 2, 3], [4, 5, 6]]),
                        "indices": t("int64", [2, 2], [[0, 1], [1, 2]]),
                        "updates": t("float32", [2], [-1, -2])}}
        c.update(kw)
        return c

    def su(**kw):
        c = {"op": "scatter_update", "axis": 0,
             "inputs": {"data": t("int32", [3, 2], [[1, 2], [3, 4], [5, 6]]),
                        "indices": t("int32", [2], [2, 0]),
                        "updates": t("int32", [2, 2], [[-1, -2], [-3, -4]])}}
        c.update(kw)
        return c

    def with_input(c, role, tensor):
        c["inputs"][role] = tensor
        return c

    errs = [
        ("schema_unknown_case_key", "schema", "unknown key 'axes' in a case",
         se(axes=1)),
        ("schema_unknown_tensor_key", "schema", "unknown key 'layout' in a tensor",
         with_input(se(), "data", dict(t("float32", [2, 3], [1, 2, 3, 4, 5, 6]), layout="nchw"))),
        ("schema_values_and_generate", "schema", "a tensor with both values and generate",
         with_input(se(), "data", dict(t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                                       generate={"kind": "fill", "value": 1}))),
        ("schema_no_source", "schema", "a tensor with none of values, generate, file",
         with_input(se(), "updates", {"dtype": "float32", "shape": [2, 2]})),
        ("schema_bad_name", "schema", "a name outside [A-Za-z0-9_.-]+ (space and '!')",
         dict(se(), name="bad name!")),
        ("schema_missing_input", "schema", "inputs without updates",
         dict(se(), inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                            "indices": t("int64", [2, 2], [0, 1, 2, 0])})),
        ("schema_axis_string", "schema", "axis given as a string", se(axis="1")),
        ("schema_unknown_generator_field", "schema", "arange with an unknown field 'stop'",
         with_input(se(), "data", {"dtype": "float32", "shape": [2, 3],
                                   "generate": {"kind": "arange", "start": 0, "stop": 6}})),
        ("schema_expected_and_expect_error", "schema",
         "expect_error excludes expected: a case with both",
         dict(se(), expected=t("float32", [2, 3], [[-1, -2, 3], [-4, 5, -3]]))),
        ("dtype_float_indices", "dtype", "indices must be int32 or int64, not float32",
         with_input(se(), "indices", t("float32", [2, 2], [[0, 1], [2, 0]]))),
        ("dtype_updates_differ", "dtype", "updates float64 while data is float32",
         with_input(se(), "updates", t("float64", [2, 2], [[-1, -2], [-3, -4]]))),
        ("dtype_mean_bool", "dtype", "mean is not defined for bool",
         se(reduction="mean", inputs={"data": t("bool", [2, 3], [True] * 6),
                                      "indices": t("int64", [2, 2], [0, 1, 2, 0]),
                                      "updates": t("bool", [2, 2], [False] * 4)})),
        ("dtype_unknown", "dtype", "unknown dtype float8 (data and updates)",
         se(inputs={"data": t("float8", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [2, 2], [0, 1, 2, 0]),
                    "updates": t("float8", [2, 2], [1, 1, 1, 1])})),
        ("values_too_few", "values", "data shape [2, 3] with 5 values",
         with_input(se(), "data", t("float32", [2, 3], [1, 2, 3, 4, 5]))),
        ("values_ragged", "values", "nested values that do not match shape [2, 3]",
         with_input(se(), "data", t("float32", [2, 3], [[1, 2, 3], [4, 5]]))),
        ("values_fraction_in_int32", "values", "3.5 in an int32 tensor",
         with_input(su(), "data", t("int32", [3, 2], [[1, 2], [3.5, 4], [5, 6]]))),
        ("values_uint8_300", "values", "300 does not fit uint8",
         su(inputs={"data": t("uint8", [3, 2], [[1, 2], [3, 300], [5, 6]]),
                    "indices": t("int32", [2], [2, 0]),
                    "updates": t("uint8", [2, 2], [[1, 2], [3, 4]])})),
        ("values_string_in_float", "values", "a string other than nan/inf/-inf",
         with_input(se(), "updates", t("float32", [2, 2], [[-1, "abc"], [-3, -4]]))),
        ("values_nan_in_int", "values", "'nan' in an int32 tensor",
         with_input(su(), "updates", t("int32", [2, 2], [[-1, "nan"], [-3, -4]]))),
        ("values_unique_too_many", "values",
         "4 unique indices asked from data.shape[0] = 3",
         with_input(with_input(su(), "updates", t("int32", [4, 2], list(range(8)))), "indices",
                    {"dtype": "int32", "shape": [4], "generate": {"kind": "indices",
                                                                  "unique": True}})),
        ("op_unknown", "op", "unknown op ScatterFoo", se(op="ScatterFoo")),
        ("op_unknown_reduction", "op", "unknown reduction avg", se(reduction="avg")),
        ("op_sub_on_scatter_elements", "op", "sub is only for scatter_nd", se(reduction="sub")),
        ("op_add_on_scatter_update", "op", "scatter_update allows only none",
         su(reduction="add")),
        ("op_mean_on_scatter_nd", "op", "mean is only for scatter_elements",
         nd(reduction="mean")),
        ("axis_out_of_range", "axis", "axis 4 on rank-2 data", se(axis=4)),
        ("axis_too_negative", "axis", "axis -3 on rank-2 data (scatter_update)", su(axis=-3)),
        ("shape_se_updates_differ", "shape", "scatter_elements: updates.shape != indices.shape",
         with_input(se(), "updates", t("float32", [2, 3], [[-1, -2, -3], [-4, -5, -6]]))),
        ("shape_se_rank", "shape", "scatter_elements: rank(indices) != rank(data)",
         se(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [2], [0, 1]),
                    "updates": t("float32", [2], [-1, -2])})),
        ("shape_se_dim_exceeds", "shape",
         "scatter_elements: indices.shape[0] = 3 > data.shape[0] = 2 (not the axis)",
         se(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [3, 1], [0, 1, 2]),
                    "updates": t("float32", [3, 1], [-1, -2, -3])})),
        ("shape_nd_k_gt_r", "shape", "scatter_nd: k = 3 > rank(data) = 2",
         nd(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [1, 3], [[0, 1, 0]]),
                    "updates": t("float32", [1], [-1])})),
        ("shape_nd_updates", "shape",
         "scatter_nd: updates [2, 2] != indices.shape[:-1] + data.shape[k:] = [2, 3]",
         nd(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [2, 1], [[0], [1]]),
                    "updates": t("float32", [2, 2], [-1, -2, -3, -4])})),
        ("shape_nd_indices_rank0", "shape", "scatter_nd: indices must have rank >= 1",
         nd(inputs={"data": t("float32", [2, 3], [1, 2, 3, 4, 5, 6]),
                    "indices": t("int64", [], 0),
                    "updates": t("float32", [3], [-1, -2, -3])})),
        ("shape_nd_scalar_data", "shape", "data must have rank >= 1 (scalar data, k = 0)",
         nd(inputs={"data": t("float32", [], 1.0),
                    "indices": t("int64", [1, 0], [[]]),
                    "updates": t("float32", [1], [2.0])})),
        ("shape_su_updates", "shape",
         "scatter_update: updates [2, 3] != data.shape[:0] + indices.shape + data.shape[1:]",
         with_input(su(), "updates", t("int32", [2, 3], [[-1, -2, -3], [-4, -5, -6]]))),
        ("index_se_out_of_range", "index", "scatter_elements: index 3 for data.shape[1] = 3",
         with_input(se(), "indices", t("int64", [2, 2], [[0, 3], [2, 0]]))),
        ("index_se_negative_out_of_range", "index",
         "scatter_elements: index -4 below -3 for data.shape[1] = 3",
         with_input(se(), "indices", t("int64", [2, 2], [[0, 1], [-4, 0]]))),
        ("index_nd_component", "index",
         "scatter_nd: tuple [0, 3] has component 1 out of range for data.shape[1] = 3, "
         "although its flat offset 3 is inside the 6-element tensor",
         with_input(nd(), "indices", t("int64", [2, 2], [[0, 1], [0, 3]]))),
        ("index_nd_out_of_range", "index", "scatter_nd: component -3 for data.shape[0] = 2",
         with_input(nd(), "indices", t("int64", [2, 2], [[-3, 1], [1, 2]]))),
        ("index_su_negative", "index", "scatter_update: negative indices are errors",
         with_input(su(), "indices", t("int32", [2], [-1, 0]))),
        ("index_su_out_of_range", "index", "scatter_update: index 3 for data.shape[0] = 3",
         with_input(su(), "indices", t("int32", [2], [3, 0]))),
        ("io_missing_npy", "io", "data names a .npy file that does not exist",
         with_input(se(), "data", {"dtype": "float32", "shape": [2, 3],
                                   "file": "npy/does_not_exist.npy"})),
        ("too_large_fill", "too_large",
         "data [100000, 100000, 100000] float64 (8e15 bytes): rejected before allocation",
         se(axis=0, inputs={"data": {"dtype": "float64", "shape": [100000, 100000, 100000],
                                     "generate": {"kind": "fill", "value": 0}},
                            "indices": t("int64", [1, 1, 1], [[[0]]]),
                            "updates": t("float64", [1, 1, 1], [[[1.0]]])})),
    ]
    out = []
    for stem, code, desc, c in errs:
        case = {"name": c.pop("name", "err_" + stem), "description": desc,
                "tags": ["error", code], "expect_error": code}
        case.update(c)
        out.append(("gen_err_" + stem, case))
    return out
