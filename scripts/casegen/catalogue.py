"""The catalogue: every generated case file under cases/ and the cases it holds."""
from .edges import edges_elements, edges_nd, edges_update
from .error_cases import error_cases
from .generated import contention_cases, generated_elements, generated_nd, generated_update, npy_cases
from .sweeps import ND_REDS, SE_REDS, sweep_elements, sweep_nd, sweep_update


def catalogue():
    """{relative file path under cases/: [case, ...]}"""
    files = {}
    se, nd, su = "scatter_elements", "scatter_nd", "scatter_update"
    for red in SE_REDS:
        seed = 100 + SE_REDS.index(red)
        files["%s/gen_%s.json" % (se, red)] = (sweep_elements(red, None, seed)
                                               + sweep_elements(red, False, seed + 50))
    for red in ND_REDS:
        files["%s/gen_%s.json" % (nd, red)] = sweep_nd(red, 200 + ND_REDS.index(red))
    files["%s/gen_none.json" % su] = sweep_update(300)
    files["%s/gen_edge.json" % se] = edges_elements()
    files["%s/gen_edge.json" % nd] = edges_nd()
    files["%s/gen_edge.json" % su] = edges_update()
    files["%s/gen_generate.json" % se] = generated_elements()
    files["%s/gen_generate.json" % nd] = generated_nd()
    files["%s/gen_generate.json" % su] = generated_update()
    for op, cases in contention_cases().items():
        files["%s/gen_contention.json" % op] = cases
    for op, cases in npy_cases().items():
        files["%s/gen_npy.json" % op] = cases
    for stem, case in error_cases():
        files["errors/%s.json" % stem] = [case]
    return files
