"""The bundled cases' generator and independent oracle (run through scripts/make_cases.py).

One job a module, upstream first:
    numeric     the number model: exact rounding to each float format, IEEE ops, wrapping ints
    shapes      row-major coordinates
    oracle      the three ops, naively, one update at a time in row-major update order
    generators  SplitMix64 and the spec's tensor generators
    validate    every error code a case file can trigger (used by --verify)
    build       case objects and their JSON text; `expected` always comes from the oracle
    sweeps, edges, generated, error_cases
                the catalogue's parts; catalogue assembles them into files
    cli         write every generated file, or --verify every case under cases/

Nothing here uses the C++ code: the arithmetic is written from the case-format spec in Python
integers and fractions, and numpy is used only to read and write .npy files. The spec's tables
come from lib/python/scatterctl_spec.py, shared with the framework workers.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = os.path.join(ROOT, "cases")

_LIB_PYTHON = os.path.join(ROOT, "lib", "python")
if _LIB_PYTHON not in sys.path:
    sys.path.insert(0, _LIB_PYTHON)
