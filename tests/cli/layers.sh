#!/usr/bin/env bash
# The layer check (scripts/check_layers.py): the library passes it, and it fails, naming the file,
# the line and both layers, on a copy of the library given an include that climbs (a public
# header, and a relative one), a loose file at lib/src's root, and an include of no file.
# Usage: layers.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"
repo=$REPO
work=$TMP

check "the library's includes keep its layers" python3 "$repo/scripts/check_layers.py"

mkdir -p "$work/copy/scripts"
cp -r "$repo/lib" "$work/copy/lib"
cp "$repo/scripts/check_layers.py" "$work/copy/scripts/"
sed -i '1i #include "scatter/run.hpp"' "$work/copy/lib/src/core/tensor.cpp"
sed -i '1i #include "../report/text.hpp"' "$work/copy/lib/src/judge/compare.cpp"
printf '// loose\n' > "$work/copy/lib/src/loose.cpp"
sed -i '1i #include "core/nothing_here.hpp"' "$work/copy/lib/src/load/npy.cpp"
out=$(python3 "$work/copy/scripts/check_layers.py" 2>&1) && rc=0 || rc=$?
check "climbing includes fail the check (exit 1)" test "$rc" -eq 1
check "a public header of a higher layer is named, with the file's line and both layers" \
  grep -q 'lib/src/core/tensor.cpp:1: includes "scatter/run.hpp" (drivers) from core' <<<"$out"
check "a relative include is resolved and named" \
  grep -q 'lib/src/judge/compare.cpp:1: includes "../report/text.hpp" (report) from judge' <<<"$out"
check "a loose file at lib/src's root is in no layer" grep -q 'lib/src/loose.cpp: in no layer' <<<"$out"
check "an include of no file is named" grep -q 'lib/src/load/npy.cpp:1: includes "core/nothing_here.hpp", which is no file' <<<"$out"
echo ok
