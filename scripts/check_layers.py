#!/usr/bin/env python3
"""The library's layers, checked from its #include lines (docs/architecture.md).

lib/src is a stack of layers, each a folder (or a few), each allowed to include only its own
layer and the layers below it: lib/CMakeLists.txt's scatter_layer() lines, bottom to top. The
public headers (lib/include/scatter) belong to layers too, by the table below. Every quoted #include of lib/src and lib/include is resolved, the relative
ones ("../x.hpp") included, and one that climbs to a higher layer is an error.

  scripts/check_layers.py            the check: exit 1 and one line per climbing include
  scripts/check_layers.py --summary  also the rooms (lib/src's folders, and the public headers as
                                     one), each on the floor above the highest room it includes

A file in no layer (a new folder, a loose file at lib/src's root, a new public header) is an
error too, and so is a quoted include that names no file of the library.
"""
import os
import re
import sys
from collections import defaultdict

# The public headers of each layer; the layers themselves, bottom to top, and their folders
# under lib/src are lib/CMakeLists.txt's scatter_layer() lines.
PUBLIC_HEADERS = {
    "core": ["vocabulary.hpp", "error.hpp", "dtype.hpp", "tensor.hpp", "case.hpp", "cancel.hpp", "files.hpp",
             "variation.hpp", "suggest.hpp", "reference.hpp", "units.hpp", "backend_traits.hpp", "plugin_abi.h",
             "version.hpp", "git_commit.hpp"],
    "load": ["load.hpp"],
    "judge": ["compare.hpp", "capabilities.hpp", "model.hpp", "profile.hpp", "expectations.hpp", "result.hpp",
              "case_facts.hpp", "diagnose.hpp"],
    "platform": ["counter.hpp", "probe.hpp", "abrupt_end.hpp"],
    "backends": ["backend.hpp", "plugin.hpp"],
    "trial": ["trial.hpp"],
    "drivers": ["run.hpp", "fuzz.hpp", "bench.hpp", "paired.hpp", "explain.hpp", "shrink.hpp"],
    "report": ["report.hpp", "journal.hpp", "merge.hpp"],
}

# The checkout: this script's, or --root DIR's (the test of the check itself).
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
if "--root" in sys.argv:
    ROOT = os.path.abspath(sys.argv[sys.argv.index("--root") + 1])
SRC = os.path.join(ROOT, "lib", "src")
INCLUDE = os.path.join(ROOT, "lib", "include")
SOURCE_EXT = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".hpp.in")
INCLUDE_LINE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


# Generated at build time: not in the tree, and in no layer's way.
GENERATED = {"scatter/git_commit.hpp"}


def read_layers():
    """[(name, [folder, ...]), ...] bottom to top, from lib/CMakeLists.txt."""
    with open(os.path.join(ROOT, "lib", "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    layers = [(m.group(1), m.group(2).split()) for m in re.finditer(r"^scatter_layer\((\w+)\s+([^)]*)\)", text, re.M)]
    if not layers:
        sys.exit("check_layers: lib/CMakeLists.txt has no scatter_layer() line")
    return layers


def layer_index(layers):
    by_folder, by_header = {}, {}
    for rank, (name, folders) in enumerate(layers):
        for f in folders:
            by_folder[f] = rank
        for h in PUBLIC_HEADERS.get(name, []):
            by_header[h] = rank
    return by_folder, by_header


def room_of(path):
    """The room a file is drawn in: its folder, lib/src/<folder>, or the public headers' one."""
    rel = os.path.relpath(path, ROOT)
    parts = rel.split(os.sep)
    if parts[:2] == ["lib", "src"]:
        return "lib/src/" + parts[2] if len(parts) > 3 else rel
    return "lib/include/scatter"


def files():
    for base in (SRC, os.path.join(INCLUDE, "scatter")):
        for d, _, names in os.walk(base):
            for n in sorted(names):
                if n.endswith(SOURCE_EXT):
                    yield os.path.join(d, n)


def resolve(including, written):
    """The file an include names, by the library's include folders (lib/src, lib/include) and
    the including file's own folder; None for a header of another project or a generated one."""
    for base in (os.path.dirname(including), SRC, INCLUDE):
        candidate = os.path.normpath(os.path.join(base, written))
        if os.path.isfile(candidate) or os.path.isfile(candidate + ".in"):
            return candidate
    return None


def main():
    layers = read_layers()
    unknown = set(PUBLIC_HEADERS) - {name for name, _ in layers}
    if unknown:
        sys.exit(f"check_layers: PUBLIC_HEADERS names layers lib/CMakeLists.txt lacks: {sorted(unknown)}")
    by_folder, by_header = layer_index(layers)

    def rank_of(path):
        rel = os.path.relpath(path, ROOT).split(os.sep)
        if rel[:2] == ["lib", "src"]:
            return by_folder.get(rel[2]) if len(rel) > 3 else None
        return by_header.get(os.path.basename(path).removesuffix(".in"))

    problems, arrows = [], set()
    for path in files():
        rank = rank_of(path)
        rel = os.path.relpath(path, ROOT)
        if rank is None:
            problems.append(f"{rel}: in no layer (a folder's layer is its scatter_layer() line in "
                            "lib/CMakeLists.txt, a public header's is PUBLIC_HEADERS here)")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in INCLUDE_LINE.finditer(text):
            target = resolve(path, m.group(1))
            line = text.count("\n", 0, m.start()) + 1
            if target is None:
                if m.group(1) not in GENERATED:
                    problems.append(f"{rel}:{line}: includes \"{m.group(1)}\", which is no file of lib/src or "
                                    "lib/include (includes are written from lib/src, or from the file's own folder)")
                continue
            target_rank = rank_of(target)
            if target_rank is None:
                continue  # reported as a file in no layer
            if room_of(target) != room_of(path):
                arrows.add((room_of(path), room_of(target), rank, target_rank))
            if target_rank > rank:
                problems.append(f"{rel}:{line}: includes \"{m.group(1)}\" ({layers[target_rank][0]}) from "
                                f"{layers[rank][0]}, a layer below it")

    if "--summary" in sys.argv:
        rooms = sorted({a for a, *_ in arrows} | {b for _, b, *_ in arrows})
        up = defaultdict(set)
        for a, b, *_ in arrows:
            up[a].add(b)
        floor = {}

        def floor_of(room, seen=()):
            if room in floor:
                return floor[room]
            if room in seen:
                return 0  # a circle: drawn on one floor
            floor[room] = 1 + max((floor_of(b, seen + (room,)) for b in up[room]), default=0)
            return floor[room]

        for r in rooms:
            floor_of(r)
        climbing = sum(1 for a, b, ra, rb in arrows if rb > ra)
        print(f"rooms {len(rooms)}, floors {max(floor.values(), default=0)}, arrows {len(arrows)}, "
              f"arrows that climb a layer {climbing}")
        for r in sorted(rooms, key=lambda r: (-floor[r], r)):
            print(f"  floor {floor[r]:2}  {r}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s): the layers, bottom to top: "
              + " -> ".join(name for name, _ in layers))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
