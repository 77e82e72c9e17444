#!/usr/bin/env bash
# Per kind, from a compare_noise.sh folder: gates, exit codes, the slowed row flagged, other
# rows flagged slower or faster, mean wall time. Usage: analyse.sh DIR (reports.tar.gz unpacked)
D=$1; SLOW=nd/slice_256B/unique/f32
for kind in aa x2 x1.1 all1.5 iaa i1.01; do
  n=0; pass=0; fail=0; und=0; other_slow=0; other_fast=0; flagged=0; secs=0; rows=0
  while read -r k i rc s f; do
    [ "$k" = "$kind" ] || continue
    n=$((n+1)); secs=$((secs+s)); flagged=$((flagged+f))
    case $rc in 0) pass=$((pass+1));; 1) fail=$((fail+1));; 6) und=$((und+1));; esac
    t="$D/${k}_$i.txt"
    v=$(sed -n '/^benchmark .* verdict$/,$p' "$t" | grep -E '^nd/')
    rows=$((rows + $(echo "$v" | grep -vc "^$SLOW ")))
    other_slow=$((other_slow + $(echo "$v" | grep -v "^$SLOW " | grep -c ' slower$')))
    other_fast=$((other_fast + $(echo "$v" | grep -v "^$SLOW " | grep -c ' faster$')))
  done < "$D/results.tsv"
  [ $n -gt 0 ] && echo "$kind: $n gates, $pass passed, $fail failed, $und undecided; slowed row flagged in $flagged; other rows: $other_slow slower, $other_fast faster of $rows; mean $((secs / n)) s"
done
