#!/usr/bin/env bash
# The harness's seconds per large row, before and after, on this machine: each binary benches
# each row alone with each backend, one after the other (never in parallel), with --progress's
# breakdown of the wall time. Usage: run.sh BEFORE_SCATTERCTL AFTER_SCATTERCTL OUT_DIR
set -uo pipefail
before=$1 after=$2 out=$3
mkdir -p "$out"
rows=(elements/unique/f32 nd/reduce/add/f32/deterministic workload/gnn/add/f32)
for row in "${rows[@]}"; do
  for side in before after; do
    s=${!side}
    for backend in cpu "worker=exe:$s:cpu" "worker=exe:$s:ref"; do
      tag=$(echo "$side-$row-${backend%%:*}-${backend##*:}" | tr '/=' '__')
      /usr/bin/time -f "wall %e s" "$s" bench --backend "$backend" --mode all --size large --filter "$row" \
        --max-seconds 0.2 --repetitions 1 --progress --json "$out/$tag.json" > "$out/$tag.txt" 2>&1
      echo "$side $row $backend: $(grep -E '^ +[0-9.]+ s: case' "$out/$tag.txt" | sed 's/^ *//')"
    done
  done
done
