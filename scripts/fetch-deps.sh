#!/usr/bin/env bash
# Downloads the Debian packages the build needs (headers, CMake configs, the libraries they
# link) with `apt-get download`, for `scripts/setup.sh --offline` on a machine that has no
# package registry. Run it where the Debian registry is reachable; nothing is installed.
#
#   scripts/fetch-deps.sh              into deps/debs/ (git-ignored), with deps/debs/manifest.tsv
#   DEPS_DIR=/some/dir scripts/fetch-deps.sh
#
# The manifest names each package, its version, architecture, file, size and sha256; setup.sh
# --offline checks every file against it. Carry deps/debs/ (about 1 MB) to the other machine:
# docs/offline-build.md. Exits 1 when a package cannot be downloaded or needs a package that is
# neither fetched nor part of the C++ toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

# The -dev packages scripts/setup.sh installs, and the runtime libraries they link against.
packages=(nlohmann-json3-dev libfmt-dev libfmt9 libcli11-dev libbenchmark-dev libbenchmark1debian libgtest-dev)
# Dependencies left out on purpose: the toolchain's own runtime (present wherever g++ is), and
# googletest, GoogleTest's sources (libgtest-dev ships the built libraries and the CMake config).
not_needed=" libc6 libgcc-s1 libstdc++6 googletest "

case "${1:-}" in
  -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  "") ;;
  *) echo "fetch-deps: unknown option $1 (known: --help)" >&2; exit 2 ;;
esac

dest=${DEPS_DIR:-deps/debs}
command -v apt-get >/dev/null || { echo "fetch-deps: no apt-get here; run this on a Debian machine with its registry" >&2; exit 1; }
mkdir -p "$dest"
tmp=$(mktemp -d "$dest/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/debs"
download() {  # as root, apt warns that it cannot drop to its _apt user in this folder: harmless
  local rc=0
  (cd "$tmp/debs" && apt-get download -q "${packages[@]}") >"$tmp/log" 2>&1 || rc=$?
  grep -v 'Download is performed unsandboxed' "$tmp/log" || true
  return "$rc"
}
if ! download; then
  # Empty or stale package lists (a fresh container): refresh them once and try again.
  echo "fetch-deps: refreshing the package lists"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q >/dev/null
  download
fi

# Every dependency of what was fetched must be fetched too, or be part of the toolchain.
fail=0
for deb in "$tmp"/debs/*.deb; do
  name=$(dpkg-deb -f "$deb" Package)
  deps=$(dpkg-deb -f "$deb" Depends | tr ',|' '\n\n' | sed 's/(.*)//; s/:.*//; s/ //g' | sed '/^$/d')
  for d in $deps; do
    [[ " ${packages[*]} " == *" $d "* || "$not_needed" == *" $d "* ]] && continue
    echo "fetch-deps: $name depends on $d, which is neither fetched nor part of the toolchain" >&2
    fail=1
  done
done
[ "$fail" -eq 0 ] || exit 1

# Replace the previous download as a whole, so no stale version stays behind.
rm -f "$dest"/*.deb "$dest/manifest.tsv"
mv "$tmp"/debs/*.deb "$dest/"
{
  echo "# scatterctl build dependencies, fetched $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME") by scripts/fetch-deps.sh"
  printf '# package\tversion\tarchitecture\tfile\tbytes\tsha256\n'
  for deb in "$dest"/*.deb; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
      "$(dpkg-deb -f "$deb" Architecture)" "$(basename "$deb")" "$(stat -c %s "$deb")" \
      "$(sha256sum "$deb" | cut -d' ' -f1)"
  done
} > "$dest/manifest.tsv"

count=$(grep -vc '^#' "$dest/manifest.tsv")
bytes=$(awk -F'\t' '!/^#/ { s += $5 } END { print s }' "$dest/manifest.tsv")
column -t -s $'\t' < <(grep -v '^# scatterctl' "$dest/manifest.tsv" | cut -f1-3,5) 2>/dev/null ||
  grep -v '^# scatterctl' "$dest/manifest.tsv" | cut -f1-3,5
echo "fetch-deps: $count packages, $bytes bytes ($(du -sh "$dest" | cut -f1) on disk) in $dest/; manifest: $dest/manifest.tsv"
