#!/usr/bin/env bash
# Installs what the build needs from Debian's packages (only what is missing), then
# configures and builds into build/. Idempotent; safe to run again.
#
#   scripts/setup.sh                           the build
#   scripts/setup.sh --frameworks              ... and .venv/ with the framework backends
#                                              (scripts/requirements-frameworks.txt)
#   scripts/setup.sh --frameworks --with-torch ... and torch (a 5 GB CUDA install, see that file)
set -euo pipefail
cd "$(dirname "$0")/.."

frameworks=0
with_torch=0
for arg in "$@"; do
  case "$arg" in
    --frameworks) frameworks=1 ;;
    --with-torch) frameworks=1; with_torch=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "setup: unknown option $arg (known: --frameworks, --with-torch)" >&2; exit 2 ;;
  esac
done

packages=(cmake g++ make libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev libgtest-dev)
if [ "$frameworks" -eq 1 ]; then
  packages+=(python3 python3-venv)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -q "${missing[@]}" || { $sudo apt-get update -q && $sudo apt-get install -y -q "${missing[@]}"; }
fi

build_type=${BUILD_TYPE:-Release}
cmake -S . -B build -DCMAKE_BUILD_TYPE="$build_type" >/dev/null
cmake --build build -j"$(nproc)"

[ "$frameworks" -eq 1 ] || exit 0

# The project's virtual environment: .venv/ (git-ignored). Re-running is fast: pip is only called when
# the requirements changed since the last successful install (a stamp holds their checksum).
req=scripts/requirements-frameworks.txt
reqs=("$req")
extra=()
if [ "$with_torch" -eq 1 ]; then
  mapfile -t extra < <(sed -n 's/^#extra torch: *//p' "$req")
fi
want=$( { cat "$req"; printf '%s\n' "${extra[@]}"; python3 --version 2>&1; } | sha256sum | cut -d' ' -f1)
stamp=.venv/.scatterctl-requirements
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "setup: .venv is up to date ($req)"
  exit 0
fi
echo "setup: installing the framework backends into .venv ($req${extra:+ + ${extra[*]}})"
start=$(date +%s)
.venv/bin/python -m pip install -q -r "$req" "${extra[@]}"
echo "$want" > "$stamp"
echo "setup: .venv ready in $(( $(date +%s) - start )) s ($(du -sh .venv | cut -f1)); the workers use .venv/bin/python"
