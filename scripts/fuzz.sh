#!/usr/bin/env bash
# Fuzzes the case loader, run on the ref backend and the JSON, JUnit and Markdown report
# writers for SECONDS (default 60): tests/fuzz/fuzz_load.cpp under libFuzzer with
# AddressSanitizer and UndefinedBehaviorSanitizer, seeded with every case file of cases/
# and tests/bad_inputs/ and with bytes no report may carry as they are (Latin-1, binary,
# control characters), built with clang in build-fuzz/. A report that is not printable
# UTF-8 or JSON that does not parse is a crash too. Any crash,
# leak, timeout or out-of-memory input is copied to tests/bad_inputs/fuzz-regressions/ (where
# tests/cli/bad_inputs.sh replays it from then on) and fails the script.
# Exit 77: no clang with libFuzzer could be found or installed (the caller may skip).
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
seconds=${1:-60}

# clang with its libFuzzer runtime, from Debian's packages when missing.
have_libfuzzer() {
  local probe
  probe=$(mktemp -d)
  printf 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }\n' >"$probe/p.cpp"
  clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1
  local rc=$?
  rm -rf "$probe"
  return $rc
}
if ! command -v clang++ >/dev/null || ! have_libfuzzer; then
  echo "fuzz: installing clang and its runtime (libFuzzer, sanitizers)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  version=$(apt-cache policy clang 2>/dev/null | sed -n 's/^ *Candidate: *[0-9]*:\{0,1\}\([0-9]*\)\..*/\1/p')
  packages=(clang)
  [ -n "$version" ] && packages+=("libclang-rt-$version-dev")
  { $sudo apt-get install -y -q "${packages[@]}" || { $sudo apt-get update -q && $sudo apt-get install -y -q "${packages[@]}"; }; } >/dev/null 2>&1 || true
  if ! command -v clang++ >/dev/null || ! have_libfuzzer; then
    echo "fuzz: cannot build with libFuzzer: clang (${packages[*]}) is not installed and could not be"
    exit 77
  fi
fi

# Ninja where the build directory is new: it starts the longest file first (lib/CMakeLists.txt).
generator=()
[ -f build-fuzz/CMakeCache.txt ] || ! command -v ninja >/dev/null || generator=(-G Ninja)
cmake -S . -B build-fuzz "${generator[@]}" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCATTER_FUZZ=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DSCATTER_SANITIZE=ON -DSCATTER_ENABLE_CUDA=OFF -DBUILD_TESTING=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_load
fuzzer=$repo/build-fuzz/tests/fuzz/fuzz_load

# Seeds: every case file (names made unique by their directory); the .npy files they
# name, under npy/ of the working directory, where a case's relative `file` resolves.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/seeds" "$work/corpus" "$work/artifacts" "$work/npy"
while IFS= read -r f; do
  rel=${f#cases/}
  cp "$f" "$work/seeds/${rel//\//__}"
done < <(find cases -name '*.json' | sort)
# The bad-input corpus too: the error paths, from files that already reach them.
for f in tests/bad_inputs/*.json tests/bad_inputs/fuzz-regressions/*; do
  if [ -f "$f" ]; then cp "$f" "$work/seeds/bad__${f##*/}"; fi
done
# Bytes no report may carry as they are: Latin-1 in a string, a binary file, control
# characters raw and escaped.
seed_case='"op":"scatter_nd","inputs":{"data":{"dtype":"float32","shape":[1],"values":[1]},"indices":{"dtype":"int64","shape":[1,1],"values":[[0]]},"updates":{"dtype":"float32","shape":[1],"values":[5]}}'
printf '{"name":"latin","description":"caf\xe9",%s}' "$seed_case" >"$work/seeds/bytes__latin1.json"
printf '\xff\xfe{}' >"$work/seeds/bytes__binary.json"
printf '{"name":"a\x01\x1b[31mb",%s}' "$seed_case" >"$work/seeds/bytes__raw_control.json"
printf '{"name":"a\\u0001b","description":"\\u001b[2J\\u0085",%s}' "$seed_case" >"$work/seeds/bytes__escaped_control.json"
find cases tests/bad_inputs/npy -name '*.npy' -exec cp {} "$work/npy/" \;
echo "fuzz: $(ls "$work/seeds" | wc -l) seeds, $seconds s"

cd "$work"
set +e
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
  "$fuzzer" corpus seeds -dict="$repo/tests/fuzz/json.dict" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -max_total_time="$seconds" -artifact_prefix="$work/artifacts/" -print_final_stats=1 2>"$work/log"
rc=$?
set -e
grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)' "$work/log" || true
found=$(ls "$work/artifacts")
if [ -n "$found" ] || [ "$rc" -ne 0 ]; then
  mkdir -p "$repo/tests/bad_inputs/fuzz-regressions"
  for a in $found; do cp "$work/artifacts/$a" "$repo/tests/bad_inputs/fuzz-regressions/"; done
  echo "fuzz: FAILED (exit $rc); inputs saved to tests/bad_inputs/fuzz-regressions/: ${found:-none}"
  echo "--- fuzzer log (the report is near the end)"
  tail -n 80 "$work/log"
  exit 1
fi
echo "fuzz: no crash in $seconds s"
