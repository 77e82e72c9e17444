#!/usr/bin/env python3
"""Independent Python oracle for scatterctl's bundled cases (the code is in scripts/casegen/).

    python3 scripts/make_cases.py           # rewrite the generated cases (gen_*.json, npy/gen_*)
    python3 scripts/make_cases.py --verify  # re-check every case file under cases/ with this oracle
"""
import sys

from casegen.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
