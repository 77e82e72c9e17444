#!/usr/bin/env bash
# The cpu backend from the command line: 20,000 fuzzed cases bit for bit against the
# reference (split over 3 threads at any element: SCATTERCTL_CPU_GRAIN=1), every bundled
# case on it, --threads in `info`-style device names, and a bad --threads refused.
# Usage: cpu_backend.sh SCATTERCTL REPO
source "$(dirname "$0")/common.bash"

SCATTERCTL_CPU_GRAIN=1 ctl fuzz --backend cpu --threads 3 --deterministic --iterations 20000 --seed 41 \
    --out "$TMP/fuzz-failures"
check "20,000 fuzzed cases on 3 threads: exit 0" rc_is 0
check "20,000 fuzzed cases: no failure" last_line_is "fuzz: 20000 cases, 20000 runs, 0 failures, 0 xfail, 0 unsupported"

ctl run "$REPO/cases" --backend cpu -q
check "every bundled case on cpu: exit 0" rc_is 0
check "every bundled case on cpu: none failed or skipped" last_line_matches "^scatterctl: [0-9]+ passed, 0 failed, 0 skipped$"

ctl bench --backend cpu --threads 3 --mode nd --filter 'nd/launch/*' --max-seconds 0.05 --repetitions 1 --min-samples 3
check "bench --threads 3: exit 0" rc_is 0
check "bench --threads 3: the device names 3 threads" out_has "^[Dd]evice: .*\(3 threads\)"

ctl run "$REPO/cases" --backend cpu --threads 0
check "--threads 0: a usage error" rc_is 2
check "--threads 0: says why" err_has "threads"
