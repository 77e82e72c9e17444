"""The catalogue's cases whose tensors come from `generate` objects or .npy files."""
from .build import F, G, V, make_case


def generated_elements():
    se = "scatter_elements"
    ctx = lambda axis, dshape: (se, axis, dshape)
    return [
        make_case("se_gen_arange_unique_add", se,
                  G("float32", [3, 4, 5], {"kind": "arange", "start": 0, "step": 0.5}),
                  G("int64", [3, 3, 5], {"kind": "indices", "unique": True, "negative": 0.3,
                                         "seed": 7}, ctx(1, [3, 4, 5])),
                  G("float32", [3, 3, 5], {"kind": "uniform", "low": -2, "high": 2, "seed": 3}),
                  red="add", axis=1, description="unique indices per line (partial "
                  "Fisher-Yates), some negative; no duplicates, so add compares exactly"),
        make_case("se_gen_randint_max", se,
                  G("int32", [4, 6], {"kind": "randint", "low": -100, "high": 100, "seed": 1}),
                  G("int32", [4, 9], {"kind": "indices", "seed": 5}, ctx(1, [4, 6])),
                  G("int32", [4, 9], {"kind": "randint", "low": -200, "high": 200, "seed": 2}),
                  red="max", axis=1, description="randint data and updates, duplicate indices"),
        make_case("se_gen_fill_mul_float16", se,
                  G("float16", [2, 3, 4], {"kind": "fill", "value": 1.5}),
                  G("int64", [2, 3, 6], {"kind": "indices", "negative": 0.5, "seed": 11},
                    ctx(-1, [2, 3, 4])),
                  G("float16", [2, 3, 6], {"kind": "uniform", "low": -2, "high": 2, "seed": 4}),
                  red="mul", axis=-1, description="fill data, float16 uniform updates "
                  "(double rounded to nearest float16), duplicates and negative indices"),
        make_case("se_gen_int8_mean", se,
                  G("int8", [5, 4], {"kind": "uniform", "low": -8, "high": 8, "seed": 9}),
                  G("int64", [7, 4], {"kind": "indices", "seed": 13}, ctx(0, [5, 4])),
                  G("int8", [7, 4], {"kind": "randint", "low": -10, "high": 10, "seed": 21}),
                  red="mean", description="integer uniform (floor of the double), "
                  "integer mean rounded toward -inf"),
        make_case("se_gen_bfloat16_min_noinit", se,
                  G("bfloat16", [3, 5], {"kind": "uniform", "low": -4, "high": 4, "seed": 17}),
                  G("int32", [3, 4], {"kind": "indices", "unique": True, "seed": 19},
                    ctx(1, [3, 5])),
                  G("bfloat16", [3, 4], {"kind": "uniform", "low": -8, "high": 8, "seed": 23}),
                  red="min", axis=1, use_init=False,
                  description="bfloat16 uniform; unique indices; min from +inf"),
        make_case("se_gen_float64_none_unique", se,
                  G("float64", [6, 2], {"kind": "arange", "start": -3, "step": 0.25}),
                  G("int64", [4, 2], {"kind": "indices", "unique": True, "negative": 0.5,
                                      "seed": 29}, ctx(0, [6, 2])),
                  G("float64", [4, 2], {"kind": "randint", "low": -1000, "high": 1000,
                                        "seed": 8}),
                  description="float64 arange, randint cast to float64, unique indices"),
    ]


def generated_nd():
    nd = "scatter_nd"
    return [
        make_case("nd_gen_unique_none_int64", nd,
                  G("int64", [4, 5, 3], {"kind": "arange", "start": -50, "step": 3}),
                  G("int64", [6, 2], {"kind": "indices", "unique": True, "seed": 3},
                    (nd, 0, [4, 5, 3])),
                  G("int64", [6, 3], {"kind": "randint", "low": -10 ** 12, "high": 10 ** 12,
                                      "seed": 4}),
                  description="unique tuples: partial Fisher-Yates of the 20 positions of "
                              "data.shape[:2], unravelled"),
        make_case("nd_gen_dups_negative_add_float64", nd,
                  G("float64", [3, 4], {"kind": "uniform", "low": -8, "high": 8, "seed": 5}),
                  G("int32", [5, 2, 2], {"kind": "indices", "negative": 0.4, "seed": 6},
                    (nd, 0, [3, 4])),
                  G("float64", [5, 2], {"kind": "uniform", "low": -1, "high": 1, "seed": 7}),
                  red="add", description="random tuples (duplicates), negative components"),
        make_case("nd_gen_unique_sub_bfloat16", nd,
                  G("bfloat16", [4, 4], {"kind": "uniform", "low": -4, "high": 4, "seed": 8}),
                  G("int64", [3, 1], {"kind": "indices", "unique": True, "negative": 0.5,
                                      "seed": 9}, (nd, 0, [4, 4])),
                  G("bfloat16", [3, 4], {"kind": "uniform", "low": -4, "high": 4, "seed": 10}),
                  red="sub", description="unique rows, bfloat16 sub (exact compare)"),
        make_case("nd_gen_dups_mul_uint8", nd,
                  G("uint8", [6], {"kind": "randint", "low": 0, "high": 10, "seed": 1}),
                  G("int64", [8, 1], {"kind": "indices", "seed": 2}, (nd, 0, [6])),
                  G("uint8", [8], {"kind": "randint", "low": 0, "high": 4, "seed": 3}),
                  red="mul", description="uint8 mul with duplicates (wraps)"),
        make_case("nd_gen_k_eq_r_min_int16", nd,
                  G("int16", [3, 3, 3], {"kind": "fill", "value": 7}),
                  G("int64", [4, 3], {"kind": "indices", "unique": True, "seed": 12},
                    (nd, 0, [3, 3, 3])),
                  G("int16", [4], {"kind": "randint", "low": -20, "high": 20, "seed": 13}),
                  red="min", description="k = r, unique element positions"),
    ]


def generated_update():
    su = "scatter_update"
    return [
        make_case("su_gen_unique_2d", su,
                  G("float32", [5, 6], {"kind": "arange", "start": 1, "step": 1}),
                  G("int32", [2, 2], {"kind": "indices", "unique": True, "seed": 1},
                    (su, 1, [5, 6])),
                  G("float32", [5, 2, 2], {"kind": "uniform", "low": -2, "high": 2, "seed": 2}),
                  axis=1, description="4 unique columns of 6 (partial Fisher-Yates)"),
        make_case("su_gen_dups_int8", su,
                  G("int8", [8, 3], {"kind": "randint", "low": -100, "high": 100, "seed": 3}),
                  G("int64", [5], {"kind": "indices", "seed": 4}, (su, 0, [8, 3])),
                  G("int8", [5, 3], {"kind": "randint", "low": -100, "high": 100, "seed": 5}),
                  description="random rows, possibly repeated: last writer"),
        make_case("su_gen_0d_float16", su,
                  G("float16", [3, 4], {"kind": "fill", "value": 0}),
                  G("int64", [], {"kind": "indices", "seed": 6}, (su, 1, [3, 4])),
                  G("float16", [3], {"kind": "uniform", "low": -1, "high": 1, "seed": 7}),
                  axis=1, description="0-d generated index"),
    ]


def npy_cases():
    se, nd, su = "scatter_elements", "scatter_nd", "scatter_update"
    return {
        se: [
            make_case("se_npy_add_float32", se,
                      F("float32", [3, 4], [x * 0.75 for x in range(12)], se,
                        "gen_se_add_data.npy"),
                      F("int64", [3, 2], [3, 0, -1, 2, 1, 1], se, "gen_se_add_indices.npy"),
                      F("float32", [3, 2], [0.5, -1, 2, 4, -8, 16], se, "gen_se_add_updates.npy"),
                      red="add", axis=1, description="all three inputs from .npy files"),
            make_case("se_npy_max_uint8", se,
                      F("uint8", [2, 3], [5, 200, 0, 255, 17, 9], se, "gen_se_max_data.npy"),
                      V("int32", [2, 3], [[1, 1, 0], [2, 0, 2]]),
                      F("uint8", [2, 3], [201, 3, 6, 10, 254, 8], se, "gen_se_max_updates.npy"),
                      red="max", axis=1, description="uint8 data and updates from .npy"),
        ],
        nd: [
            make_case("nd_npy_none_int16", nd,
                      F("int16", [3, 4], [1000 * x - 5000 for x in range(12)], nd,
                        "gen_nd_none_data.npy"),
                      V("int32", [2, 1], [[2], [0]]),
                      F("int16", [2, 4], [-1, -2, -3, -4, 32767, -32768, 0, 5], nd,
                        "gen_nd_none_updates.npy"),
                      description="int16 data and updates from .npy"),
            make_case("nd_npy_add_bool", nd,
                      F("bool", [2, 3], [False, True, False, False, False, True], nd,
                        "gen_nd_bool_data.npy"),
                      F("int64", [3, 2], [0, 0, 1, 1, 0, 0], nd, "gen_nd_bool_indices.npy"),
                      V("bool", [3], [True, True, False]), red="add",
                      description="bool data and int64 indices from .npy; add = OR"),
        ],
        su: [
            make_case("su_npy_none_float16", su,
                      F("float16", [4, 2], [0.5 * x for x in range(8)], su, "gen_su_data.npy"),
                      F("int64", [2], [3, 1], su, "gen_su_indices.npy"),
                      F("float16", [2, 2], [-1, -2, 65504, -0.0009765625], su,
                        "gen_su_updates.npy"),
                      description="float16 data and updates from .npy"),
            make_case("su_npy_none_int8", su,
                      F("int8", [2, 3], [1, 2, 3, 4, 5, 6], su, "gen_su_int8_data.npy"),
                      V("int32", [1], [2]),
                      F("int8", [2, 1], [-128, 127], su, "gen_su_int8_updates.npy"), axis=1,
                      description="int8 from .npy"),
        ],
    }



def contention_cases():
    """Many updates on few targets: enough (2^17) for the cuda backend's per-block
    aggregation in shared memory, so that its emulation, the GPU run and racecheck meet it:
    the bins of a small output (k_reduce_bins), and the keyed tables of few targets in an
    output too large for bins (k_reduce_block, the 64 targets in 2048 elements)."""
    se, nd = "scatter_elements", "scatter_nd"
    n = 131072
    tags = ("contention",)
    return {
        se: [
            make_case("se_contention_one_element_add_int32", se,
                      G("int32", [1], {"kind": "fill", "value": 5}),
                      G("int64", [n], {"kind": "fill", "value": 0}),
                      G("int32", [n], {"kind": "fill", "value": 3}),
                      red="add", tags=tags, description="131072 updates of 3 onto one element holding 5"),
            make_case("se_contention_100_bins_add_float32", se,
                      G("float32", [100], {"kind": "uniform", "low": -4, "high": 4, "seed": 1}),
                      G("int32", [n], {"kind": "indices", "negative": 0.3, "seed": 2}, (se, 0, [100])),
                      G("float32", [n], {"kind": "uniform", "low": -1, "high": 1, "seed": 3}),
                      red="add", tags=tags, description="131072 uniform updates onto 100 bins (about 1311 "
                      "each): other orders and merged partial sums are held to the tolerance that grows "
                      "with the hits"),
            make_case("se_contention_64_bins_max_float16", se,
                      G("float16", [64, 1], {"kind": "uniform", "low": -8, "high": 8, "seed": 4}),
                      G("int64", [n, 1], {"kind": "indices", "seed": 5}, (se, 0, [64, 1])),
                      G("float16", [n, 1], {"kind": "uniform", "low": -100, "high": 100, "seed": 6}),
                      red="max", tags=tags, description="float16 max onto 64 bins: exact in any order"),
            make_case("se_contention_100_bins_mean_float32_no_init", se,
                      G("float32", [100], {"kind": "fill", "value": 7}),
                      G("int64", [n], {"kind": "indices", "seed": 8}, (se, 0, [100])),
                      G("float32", [n], {"kind": "uniform", "low": 0, "high": 2, "seed": 9}),
                      red="mean", use_init=False, tags=tags,
                      description="mean of about 1311 updates per bin, data left out"),
            make_case("se_contention_64_targets_in_2048_add_float32", se,
                      G("float32", [64, 32], {"kind": "uniform", "low": -4, "high": 4, "seed": 13}),
                      G("int64", [n, 1], {"kind": "indices", "seed": 14}, (se, 0, [64, 32])),
                      G("float32", [n, 1], {"kind": "uniform", "low": -1, "high": 1, "seed": 15}),
                      red="add", tags=tags, description="131072 updates onto the 64 elements of column 0 "
                      "in 2048: few targets in an output too large for a bin per element"),
        ],
        nd: [
            make_case("nd_contention_200_bins_sub_int64", nd,
                      G("int64", [200], {"kind": "randint", "low": -1000, "high": 1000, "seed": 10}),
                      G("int64", [n, 1], {"kind": "indices", "seed": 11}, (nd, 0, [200])),
                      G("int64", [n], {"kind": "randint", "low": -1000000, "high": 1000000, "seed": 12}),
                      red="sub", tags=tags, description="int64 sub onto 200 bins: exact in any order"),
            make_case("nd_contention_one_row_add_bfloat16", nd,
                      G("bfloat16", [4, 256], {"kind": "fill", "value": 0}),
                      G("int64", [512, 1], {"kind": "fill", "value": 2}),
                      G("bfloat16", [512, 256], {"kind": "fill", "value": 0.015625}),
                      red="add", tags=tags, description="512 rows of 1/64 onto row 2: step by step the "
                      "sum stops at 4 (4 + 1/64 is a tie in bfloat16, which keeps 4) where the exact sum "
                      "is 8; other orders and merged partials land in between, within the tolerance"),
        ],
    }
