#!/usr/bin/env python3
"""Every kernel in a PTX file (or, with --sass, in `cuobjdump -sass` output) must write memory: a kernel whose body the compiler reduced
to a bare `ret` has lost its stores (undefined behaviour, or a call nvcc compiled to
nothing, as a run-time call of a host constexpr function under --expt-relaxed-constexpr
was). No GPU needed: nvcc emits the PTX at build time.

    ptx_kernels_store.py FILE.ptx [--min-kernels N] [--require NAME=INSTRUCTION]... [--forbid NAME=INSTRUCTION]...
    ptx_kernels_store.py --sass FILE.sass [--min-kernels N] [--require NAME=INSTRUCTION]... [--forbid NAME=INSTRUCTION]...

--require: every kernel whose mangled name contains NAME must contain INSTRUCTION (a
substring of a PTX line), e.g. the packed float16 atomic in the float16 reductions.
--forbid: no kernel whose name contains NAME may contain INSTRUCTION (local memory, a
global atomic), and at least one kernel must match NAME.
--require-run NAME=INSTRUCTION*COUNT (SASS): every kernel whose name contains NAME has COUNT
memory instructions in a row that start with INSTRUCTION, no other load, store, atomic or
barrier between them: loads issued together, before what uses them.

Exit 0 when every entry has a store (st., atom., red.), 1 with the names of those that
have none, 2 on a usage error or when fewer than N kernels were found (a PTX file that
is not the one meant).
"""
import re
import sys


def kernels(text):
    """(name, body) of each .entry, the body up to its closing brace at column 0."""
    for m in re.finditer(r"^\.(?:visible\s+)?\.?entry\s+(\S+?)\(", text, re.M):
        start = text.index("{", m.end())
        end = text.index("\n}", start)
        yield m.group(1), text[start:end]


def sass_kernels(text):
    """(name, body) of each `Function : NAME` section of cuobjdump -sass output."""
    parts = re.split(r"^\s*Function : (\S+)\s*$", text, flags=re.M)
    for i in range(1, len(parts) - 1, 2):
        yield parts[i], parts[i + 1]


def has_run(body, instruction, count):
    """Whether a SASS body has `count` memory instructions or barriers in a row that start
    with `instruction`."""
    ops = re.findall(r"^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?((?:LD[GSL]?|ST[GSL]?|ATOM[GS]?|REDG?|BAR)(?:\.\S*)?)\s",
                     body, re.M)  # not LDC: constants are no memory traffic
    run = 0
    for op in ops:
        run = run + 1 if op.startswith(instruction) else 0
        if run >= count:
            return True
    return False


def check_rule(found, name_part, instruction, wanted, has=lambda body, instruction: instruction in body):
    """The number of kernels named *name_part* that break the rule (`has` INSTRUCTION in each
    body when wanted, in none otherwise), or 1 when no kernel has such a name; says which."""
    matched = [(name, body) for name, body in found if name_part in name]
    breaking = [name for name, body in matched if has(body, instruction) != wanted]
    if not matched:
        print(f"ptx_kernels_store: no kernel's name contains {name_part}")
        return 1
    for name in breaking:
        print(f"ptx_kernels_store: kernel {name} " + (f"lacks {instruction}" if wanted else f"has {instruction}, which it must not"))
    if not breaking:
        verdict = "have" if wanted else "lack"
        print(f"ptx_kernels_store: all {len(matched)} kernels named *{name_part}* {verdict} {instruction}")
    return len(breaking)


def run_of(body, rule):
    instruction, count = rule.rsplit("*", 1)
    return has_run(body, instruction, int(count))


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 2 if len(argv) < 2 else 0
    minimum = 1
    if "--min-kernels" in argv:
        minimum = int(argv[argv.index("--min-kernels") + 1])
    required = [argv[i + 1].split("=", 1) for i, a in enumerate(argv) if a == "--require"]
    forbidden = [argv[i + 1].split("=", 1) for i, a in enumerate(argv) if a == "--forbid"]
    runs = [argv[i + 1].split("=", 1) for i, a in enumerate(argv) if a == "--require-run"]
    sass = "--sass" in argv
    if sass:
        argv = [a for a in argv if a != "--sass"]
    text = open(argv[1], errors="replace").read()
    found = list(sass_kernels(text) if sass else kernels(text))
    if len(found) < minimum:
        print(f"ptx_kernels_store: {len(found)} kernels in {argv[1]}, expected at least {minimum}")
        return 2
    if sass:  # ST, STG, ATOM, ATOMG, RED, REDG (shared memory's STS and ATOMS do not count)
        store = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?(?:STG?|ATOMG?|REDG?)\.", re.M)
    else:
        store = re.compile(r"^\s*(?:@%p\d+\s+)?(?:st|atom|red)\.", re.M)
    # CUB's EmptyKernel is empty by design (it only anchors CUB's PTX version query).
    empty = [name for name, body in found if not store.search(body) and "EmptyKernel" not in name]
    for name in empty:
        print(f"ptx_kernels_store: kernel {name} has no store, atomic or reduction: its body was compiled away")
    print(f"ptx_kernels_store: {len(found) - len(empty)} of {len(found)} kernels write memory")
    missing = sum(check_rule(found, name_part, instruction, True) for name_part, instruction in required)
    missing += sum(check_rule(found, name_part, instruction, False) for name_part, instruction in forbidden)
    missing += sum(check_rule(found, name_part, rule, True, run_of) for name_part, rule in runs)
    return 1 if empty or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
