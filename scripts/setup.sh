#!/usr/bin/env bash
# Installs what the build needs from Debian's packages (only what is missing), then
# configures and builds into build/ (or BUILD_DIR). Idempotent; safe to run again.
#
#   scripts/setup.sh                           the build
#   scripts/setup.sh --frameworks              ... and .venv/ with the framework backends
#                                              (scripts/requirements-frameworks.txt)
#   scripts/setup.sh --frameworks --with-torch ... and torch (a 5 GB CUDA install, see that file)
#   scripts/setup.sh --offline                 the build without a package registry: never calls
#                                              apt-get; builds with the .deb files of
#                                              scripts/fetch-deps.sh (deps/debs/, sha256-checked
#                                              against its manifest, unpacked into deps/prefix/),
#                                              or with the system's packages when there are none
#   scripts/setup.sh [...] -- ARGS             ARGS go to cmake's configure step
#                                              (e.g. -- -DSCATTER_ENABLE_CUDA=OFF)
# Environment: BUILD_DIR (default build), BUILD_TARGETS (default all), BUILD_TYPE (default Release), DEPS_DIR (default
# deps/debs), DEPS_PREFIX (default deps/prefix). A new build dir uses Ninja when `ninja` is on
# PATH (unless CMAKE_GENERATOR is set); an existing one keeps its generator.
# Offline builds: docs/offline-build.md.
set -euo pipefail
cd "$(dirname "$0")/.."

frameworks=0
with_torch=0
offline=0
cmake_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --frameworks) frameworks=1 ;;
    --with-torch) frameworks=1; with_torch=1 ;;
    --offline) offline=1 ;;
    --) shift; cmake_args=("$@"); break ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "setup: unknown option $1 (known: --frameworks, --with-torch, --offline, -- CMAKE_ARGS)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$offline" -eq 1 ] && [ "$frameworks" -eq 1 ]; then
  echo "setup: --frameworks needs the Python package registry (pip); it cannot be combined with --offline" >&2
  exit 2
fi

build_dir=${BUILD_DIR:-build}
deps_dir=${DEPS_DIR:-deps/debs}
deps_prefix=${DEPS_PREFIX:-deps/prefix}
dev_packages=(libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev libgtest-dev)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# Checks every .deb of the manifest against its sha256, then unpacks them into the prefix
# (again only when the manifest changed). Prints the prefix's absolute path. Runs in $(...),
# where set -e does not apply: every failure returns explicitly.
unpack_deps() {
  local manifest=$deps_dir/manifest.tsv want pkg version arch file bytes sum
  want=$(sha256sum "$manifest" | cut -d' ' -f1)
  while IFS=$'\t' read -r pkg version arch file bytes sum; do
    [ -f "$deps_dir/$file" ] || { echo "setup: $deps_dir/$file ($pkg $version) is missing; run scripts/fetch-deps.sh again" >&2; return 1; }
    [ "$(sha256sum "$deps_dir/$file" | cut -d' ' -f1)" = "$sum" ] ||
      { echo "setup: $deps_dir/$file does not match the sha256 of $manifest ($sum); fetch it again" >&2; return 1; }
  done < <(grep -v '^#' "$manifest")
  if [ "$(cat "$deps_prefix/.manifest-sha256" 2>/dev/null)" != "$want" ]; then
    rm -rf "$deps_prefix"
    mkdir -p "$deps_prefix"
    while IFS=$'\t' read -r pkg version arch file bytes sum; do
      unpack_deb "$deps_dir/$file" "$deps_prefix" ||
        { echo "setup: could not unpack $deps_dir/$file" >&2; rm -rf "$deps_prefix"; return 1; }
    done < <(grep -v '^#' "$manifest")
    echo "$want" > "$deps_prefix/.manifest-sha256"
    echo "setup: unpacked $(grep -vc '^#' "$manifest") packages from $deps_dir into $deps_prefix" >&2
  fi
  (cd "$deps_prefix" && pwd)
}

# dpkg-deb -x, or without dpkg: a .deb is an ar archive holding data.tar.{xz,zst,gz}.
unpack_deb() {
  local deb=$1 into=$2 tmp data
  if command -v dpkg-deb >/dev/null; then
    dpkg-deb -x "$deb" "$into"
    return
  fi
  deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb") || return 1
  tmp=$(mktemp -d) || return 1
  (cd "$tmp" && ar x "$deb") &&
    data=$(ls "$tmp"/data.tar.* 2>/dev/null | head -n 1) && [ -n "$data" ] &&
    tar -xf "$data" -C "$into" || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp"
}

if [ "$offline" -eq 1 ]; then
  for tool in cmake c++; do
    command -v "$tool" >/dev/null || { echo "setup: --offline needs $tool on PATH (nothing is installed offline)" >&2; exit 1; }
  done
  command -v ninja >/dev/null || command -v make >/dev/null ||
    { echo "setup: --offline needs ninja or make on PATH (nothing is installed offline)" >&2; exit 1; }
  if [ -f "$deps_dir/manifest.tsv" ]; then
    prefix=$(unpack_deps)
    cmake_args=("-DSCATTER_DEPS_PREFIX=$prefix" "${cmake_args[@]}")
  else
    missing=()
    for p in "${dev_packages[@]}"; do installed "$p" || missing+=("$p"); done
    if [ ${#missing[@]} -gt 0 ]; then
      echo "setup: --offline: no $deps_dir/manifest.tsv, and the system lacks ${missing[*]}." >&2
      echo "setup: run scripts/fetch-deps.sh where the Debian registry is reachable and carry $deps_dir/ here (docs/offline-build.md)" >&2
      exit 1
    fi
    echo "setup: --offline: no $deps_dir/manifest.tsv; building with the system's packages"
  fi
else
  # valgrind: its callgrind.h marks the counted regions, and it runs them (bench --counter).
  packages=(cmake g++ make valgrind "${dev_packages[@]}")
  if [ "$frameworks" -eq 1 ]; then
    packages+=(python3 python3-venv)
  fi
  missing=()
  for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y -q "${missing[@]}" || { $sudo apt-get update -q && $sudo apt-get install -y -q "${missing[@]}"; }
  fi
fi

build_type=${BUILD_TYPE:-Release}
generator=()
if [ ! -f "$build_dir/CMakeCache.txt" ] && [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="$build_type" "${cmake_args[@]}" >/dev/null
# BUILD_TARGETS (space-separated): only these targets (scripts/ab_gate.sh builds the base's scatterctl alone).
targets=()
for t in ${BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}"

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
