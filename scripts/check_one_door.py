#!/usr/bin/env python3
"""One door out (docs/reliability.md): no C++ of lib/ or app/ writes a file but through the door.

Every file scatterctl writes for a user goes through write_file_atomically (lib/src/core/files.cpp),
after the command's Outputs (app/outputs.cpp) checked its path. The few other writes are fresh
files in folders scatterctl made itself, or the kernel's control files, each listed below with
why; any other line that opens a file for writing, renames one over another or makes a
temporary one is an error, named by file and line.

  scripts/check_one_door.py [ROOT]   exit 1 and one line per write outside the door
"""
import os
import re
import sys

# Lines that open, create or replace a file.
WRITES = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|\bofstream\b|\bstd::fstream\b|ios::out|\bfopen\s*\(|\bcreat\s*\(|mkstemp|"
                    r"\brename\s*\(|filesystem::copy|fs::copy|\btruncate\s*\(")

# file: why it may write outside the door.
ALLOWED = {
    "lib/src/core/files.cpp": "the door itself: a temporary file beside the target, then a rename",
    "app/outputs.cpp": "a probe file (mkstemp, removed at once) that tells whether a folder can be written",
    "lib/src/report/journal.cpp": "the run's journal: a fresh file (O_EXCL, no link followed), appended to",
    "lib/src/load/npy.cpp": "write_new_npy: a fresh file (O_EXCL) in a worker's private folder, never a user's path",
    "lib/src/external/process.cpp": "a worker's log, in the private folder (mode 0700) made for it",
    "lib/src/box/freezer.cpp": "the box's cgroup control files (procs, freeze, kill), which scatterctl made",
}

SOURCES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".c")


def comment_free(line):
    return line.split("//", 1)[0]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = []
    for top in ("lib", "app"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                if rel in ALLOWED:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        if WRITES.search(comment_free(line)):
                            found.append(f"{rel}:{number}: writes a file outside the door: {line.strip()}")
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} write(s) outside lib/src/core/files.cpp: write through write_file_atomically, "
              "or list the file in scripts/check_one_door.py with why")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
