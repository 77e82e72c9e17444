"""Independent Python oracle for scatterctl's bundled cases.

    python3 scripts/make_cases.py           # rewrite the generated cases (gen_*.json, npy/gen_*)
    python3 scripts/make_cases.py --verify  # re-check every case file under cases/ with this oracle

Nothing here uses the C++ code. The arithmetic follows the case-format spec (docs/case-format.md) and the
project's choices: one update at a time in row-major update order, in the data's own type
(float results rounded to nearest-even after every step, computed exactly with fractions;
integers wrap), IEEE 754-2019 minimum/maximum, integer mean floored, `none` = last writer.
Generators (SplitMix64, arange, fill, uniform, randint, indices) are implemented per the spec.
Only numpy is needed, and only to write and read .npy files.

--verify loads every *.json under cases/ (skipping cases/large/), checks each case with an
independent validator (a valid case must raise no error; an expect_error case must raise
exactly its code and no other), materializes values/generate/file tensors, runs the oracle
and compares with `expected` bit for bit (any NaN equals any NaN).
"""
import json
import os

import numpy as np

from scatterctl_spec import ERROR_CODES, OPS

from . import CASES
from .build import NPY_OUT, dumps_cases
from .catalogue import catalogue
from .validate import check_case


def write_all():
    NPY_OUT.clear()
    files = catalogue()
    for op_dir in (*OPS, "errors"):
        d = os.path.join(CASES, op_dir)
        os.makedirs(d, exist_ok=True)
        for root, _, names in os.walk(d):
            for n in names:
                if n.startswith("gen_") and (n.endswith(".json") or n.endswith(".npy")):
                    os.remove(os.path.join(root, n))
    for rel, cases in sorted(files.items()):
        with open(os.path.join(CASES, rel), "w", encoding="utf-8") as f:
            f.write(dumps_cases(cases))
    for rel, arr in sorted(NPY_OUT.items()):
        path = os.path.join(CASES, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        np.save(path, arr, allow_pickle=False)
    n = sum(len(c) for c in files.values())
    print("wrote %d cases in %d files, %d .npy files" % (n, len(files), len(NPY_OUT)))


def verify():
    names, counts, failures = {}, {}, []
    paths = []
    for root, dirs, fnames in os.walk(CASES):
        dirs[:] = sorted(d for d in dirs
                         if os.path.relpath(os.path.join(root, d), CASES) != "large")
        paths += [os.path.join(root, n) for n in sorted(fnames) if n.endswith(".json")]
    for path in sorted(paths):
        rel = os.path.relpath(path, CASES)
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if isinstance(doc, dict) and "cases" in doc:
            if set(doc) - {"cases", "format"}:
                failures.append("%s: unknown top-level key" % rel)
            cases = doc["cases"]
        else:
            cases = [doc]
        for case in cases:
            name = case.get("name")
            if name in names:
                failures.append("%s: duplicate name %s (also in %s)" % (rel, name, names[name]))
            names[name] = rel
            try:
                errors, out, summary = check_case(case, os.path.dirname(path))
            except AssertionError as e:
                failures.append("%s: %s" % (rel, e))
                continue
            want = case.get("expect_error")
            if want is not None:
                if want not in ERROR_CODES or errors != {want}:
                    failures.append("%s: %s expects %s, oracle finds %s"
                                    % (rel, name, want, sorted(errors)))
                key = ("errors", want, "-")
            else:
                if errors:
                    failures.append("%s: %s unexpectedly invalid: %s" % (rel, name, sorted(errors)))
                    continue
                if "expected" not in case:
                    failures.append("%s: %s has no expected" % (rel, name))
                key = summary
            counts[key] = counts.get(key, 0) + 1
    for k in sorted(counts):
        print("%-17s %-5s %-9s %d" % (k + (counts[k],)))
    print("%d cases in %d files" % (sum(counts.values()), len(paths)))
    for f in failures:
        print("FAIL", f)
    return not failures


def main(argv):
    """argv without the program name -> exit status (or the usage text, for sys.exit)."""
    if argv == ["--verify"]:
        return 0 if verify() else 1
    if argv:
        return __doc__
    write_all()
    return 0
