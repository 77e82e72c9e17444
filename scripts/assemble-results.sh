#!/usr/bin/env bash
# Gathers the output folders of scripts/gpu-check.sh (one per stage, or several stages in one)
# into bench/results/<device>-<date>/, to be committed:
#
#   scripts/assemble-results.sh DIR... [--dest FOLDER]
#
# Copies each stage's STAGE.md, STAGE.json and STAGE.tar.gz; from bench.tar.gz it also takes the
# summary (bench/summarize.py) and the charts, so that they show in the folder. Then writes
# README.md: device, driver, nvcc, dates, commits, and one row per stage with its verdict, its
# time and what it counted. A stage already in the folder (from an earlier machine loan) stays
# unless a DIR brings it again, which replaces it; the README covers every stage there.
#
#   --dest FOLDER   instead of bench/results/<device>-<date>/ (date: the first stage's, UTC)
#
# Refuses (exit 2) folders without a stage, the same stage twice, and stages of different
# devices. Exit 0 otherwise, whatever the verdicts (the README names them).
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1

dest=""
dirs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --dest) [ $# -ge 2 ] || { echo "assemble-results: --dest needs a folder" >&2; exit 2; }; dest=$2; shift ;;
    --dest=*) dest=${1#--dest=} ;;
    -*) echo "assemble-results: unknown option $1 (scripts/assemble-results.sh --help)" >&2; exit 2 ;;
    *) dirs+=("$1") ;;
  esac
  shift
done
[ ${#dirs[@]} -gt 0 ] || { echo "assemble-results: name the output folders of scripts/gpu-check.sh (--help)" >&2; exit 2; }

python3 - "$dest" "${dirs[@]}" <<'EOF'
import json, os, re, shutil, sys, tarfile

STAGES = ["build", "test", "cases", "fuzz", "sanitize", "bench"]
dest, dirs = sys.argv[1], sys.argv[2:]


def die(message):
    print(f"assemble-results: {message}", file=sys.stderr)
    sys.exit(2)


def meta_of(path):
    """The gpu-check facts of STAGE.json: the document itself, or for bench its context.gpu_check."""
    with open(path) as f:
        doc = json.load(f)
    meta = doc.get("context", {}).get("gpu_check") if "benchmarks" in doc else doc
    if not isinstance(meta, dict) or meta.get("schema") != "scatterctl-gpu-check/1":
        die(f"{path} was not written by scripts/gpu-check.sh")
    return meta


def slug(text):
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9-]", "", text.lower().replace(" ", "-"))).strip("-") or "gpu"


found = {}
for d in dirs:
    if not os.path.isdir(d):
        die(f"{d} is not a folder")
    here = [s for s in STAGES if os.path.isfile(os.path.join(d, f"{s}.json"))]
    if not here:
        die(f"{d} holds no STAGE.json of scripts/gpu-check.sh (stages: {', '.join(STAGES)})")
    for s in here:
        if s in found:
            die(f"stage {s} is in both {found[s][0]} and {d}: name one")
        found[s] = (d, meta_of(os.path.join(d, f"{s}.json")))

devices = {m["device"] for _, m in found.values()}
if len(devices) > 1:
    die("stages of different devices: " + "; ".join(f"{s}: {m['device']}" for s, (_, m) in found.items()))
device = devices.pop()
first = min(m["started"] for _, m in found.values())
dest = dest or os.path.join("bench", "results", f"{slug(device)}-{first[:10]}")
os.makedirs(dest, exist_ok=True)

for s, (d, m) in found.items():
    for name in (f"{s}.md", f"{s}.json", f"{s}.tar.gz"):
        target = os.path.join(dest, name)
        if os.path.exists(os.path.join(d, name)):
            shutil.copyfile(os.path.join(d, name), target)
        elif os.path.exists(target):
            os.remove(target)  # a tarball of an earlier run of this stage
    print(f"assemble-results: {s}: {m['verdict']} ({d})")
    if s == "bench" and os.path.exists(os.path.join(d, "bench.tar.gz")):
        with tarfile.open(os.path.join(d, "bench.tar.gz")) as t:
            for member in t.getmembers():
                base = os.path.basename(member.name)
                if member.isfile() and (base == "summary.md" or base.endswith((".svg", ".png"))):
                    with t.extractfile(member) as src, open(os.path.join(dest, base), "wb") as out:
                        shutil.copyfileobj(src, out)

# The README covers every stage in the folder, earlier ones included.
stages = {}
for s in STAGES:
    if os.path.exists(os.path.join(dest, f"{s}.json")):
        stages[s] = meta_of(os.path.join(dest, f"{s}.json"))
if {m["device"] for m in stages.values()} != {device}:
    die(f"{dest} already holds stages of another device")


def what(s, m):
    c = m.get("counts", {})
    if s == "build":
        return f"CUDA architectures {c.get('cuda_architectures', '?')}, {c.get('warnings', '?')} warning lines"
    if s == "test":
        if "passed" not in c:
            return "no counts: see test.md"
        total = c.get("total")
        return (f"{c.get('passed', '?')} passed, {c.get('failed', '?')} failed, {c.get('skipped', '?')} skipped"
                + (f" of {total}" if total is not None else ", ctest did not finish"))
    if s == "cases":
        return "; ".join(f"{k}: {(v or {}).get('closing_line', 'no report').removeprefix('scatterctl: ')}"
                         for k, v in c.get("runs", {}).items())
    if s == "fuzz":
        return "; ".join(f"{k}: {v.get('cases', '?')} cases, {v.get('failures', '?')} failures"
                         + (", ended by the budget" if v.get("ended_by_budget") else "") for k, v in c.items())
    if s == "sanitize":
        return (f"{c.get('sanitizer_errors', '?')} sanitizer errors; steps: "
                + "; ".join(x["step"] + (" (stopped by the budget)" if x.get("timed_out") else "")
                            for x in c.get("steps", [])))
    if s == "bench":
        with open(os.path.join(dest, "bench.json")) as f:
            rows = json.load(f).get("benchmarks", [])
        backends = sorted({r.get("backend", "?") for r in rows})
        timed = sum(1 for r in rows if not r.get("error") and not r.get("failed"))
        return f"{len(rows)} rows ({timed} timed) on {', '.join(backends)}" + (
            "; [summary](summary.md)" if os.path.exists(os.path.join(dest, "summary.md")) else "")
    return ""


any_meta = next(iter(stages.values()))
commits = sorted({m["commit"] + (" (plus uncommitted changes)" if m["uncommitted_changes"] else "")
                  for m in stages.values()})
lines = [f"# GPU check: {device}", "",
         f"- device: {device}, driver {any_meta['driver']}, nvcc {any_meta['nvcc'] or 'unknown'}",
         f"- dates: {min(m['started'] for m in stages.values())} to {max(m['started'] for m in stages.values())}",
         f"- commit: {commits[0]}" if len(commits) == 1 else
         "- commits (stages ran on different trees): " + ", ".join(commits),
         "- made by `scripts/gpu-check.sh STAGE` (one call per stage) and `scripts/assemble-results.sh`",
         "", "| stage | verdict | date | commit | time | what | files |", "|---|---|---|---|---|---|---|"]
for s, m in stages.items():
    files = ", ".join(f"[{f}]({f})" for f in m["files"] if os.path.exists(os.path.join(dest, f)))
    verdict = m["verdict"] if m["verdict"] == "passed" else f"**{m['verdict'].upper()}**"
    lines.append(f"| {s} | {verdict} | {m['started']} | {m['commit'][:12]} | {m['elapsed_s']} s of "
                 f"{m['budget_s']} | {what(s, m).replace('|', '/')} | {files} |")
missing = [s for s in STAGES if s not in stages]
if missing:
    lines += ["", "Not run: " + ", ".join(missing) + "."]
lines += ["", "Each STAGE.md names every command with its exit code and time; STAGE.json holds the same as data "
          "(bench.json is the merged `scatterctl bench` report, with these facts under `context.gpu_check`); "
          "STAGE.tar.gz holds the logs, reports and failing cases."]
with open(os.path.join(dest, "README.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
verdicts = ", ".join(f"{s} {m['verdict']}" for s, m in stages.items())
print(f"assemble-results: {dest}/README.md: {verdicts}")
name = os.path.basename(os.path.normpath(dest))
charts = sorted(f for f in os.listdir(dest) if f.endswith(".svg"))
print("assemble-results: the row for bench/results/README.md:\n"
      f"| [{name}]({name}/) | {device} | `scripts/gpu-check.sh` ({', '.join(stages)}) | [README]({name}/README.md)"
      + (f", [bench summary]({name}/summary.md)" if os.path.exists(os.path.join(dest, "summary.md")) else "")
      + " | " + (", ".join(f"[{c[:-4]}]({name}/{c})" for c in charts) or "none") + " |")
EOF
