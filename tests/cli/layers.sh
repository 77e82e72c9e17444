#!/usr/bin/env bash
# The layer check (scripts/check_layers.py): the library passes it, and it fails, naming the file,
# the line and both layers, on a copy of the library given an include that climbs (a public
# header, and a relative one), a loose file at lib/src's root, and an include of no file.
# And the one door out: scripts/check_one_door.py passes, and names a write added outside it.
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

# One door out (scripts/check_one_door.py): no C++ writes a file but through write_file_atomically,
# or in a file listed with why; a write added anywhere else is named.
check "no file is written but through the one door" python3 "$repo/scripts/check_one_door.py" "$repo"
mkdir -p "$work/door/lib/src/report" "$work/door/app"
printf '#include <fstream>\nvoid f() { std::ofstream out("x"); }\n' >"$work/door/lib/src/report/sneak.cpp"
printf 'int g() { return ::open("y", O_WRONLY | O_CREAT, 0644); }\n' >"$work/door/app/cmd_sneak.cpp"
out=$(python3 "$repo/scripts/check_one_door.py" "$work/door" 2>&1) && rc=0 || rc=$?
check "a write outside the door fails the check (exit 1)" test "$rc" -eq 1
check "... naming the file and line" grep -q 'lib/src/report/sneak.cpp:2: writes a file outside the door' <<<"$out"
check "... in app/ too" grep -q 'app/cmd_sneak.cpp:1: writes a file outside the door' <<<"$out"
echo ok
