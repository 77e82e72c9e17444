#!/usr/bin/env bash
# An honest worker's time before (base, 37637dc) and after (new) workers were stopped between
# requests: the NumPy example kernel beside cpu, and onnxruntime beside cpu on the histograms,
# alternating base and new three times. OUT: where the reports go.
cd "$(dirname "$0")/../../.." && OUT=${OUT:-/tmp}
for i in 1 2 3; do
  for side in base new; do
    bin=build-cpu/app/scatterctl; [ $side = base ] && bin=build-ab/base/build/app/scatterctl
    $bin bench bench/results/judge-cpu-2026-11-29/case.json --backend python:examples/python-kernel/numpy_kernel.py,cpu --max-seconds 0.5 --min-samples 16 --repetitions 1 --json $OUT/h_${side}_$i.json > $OUT/h_${side}_$i.txt 2>&1
    $bin bench --mode workload --size small --filter 'workload/histogram/*' --backend onnxruntime,cpu --repetitions 1 --json $OUT/hw_${side}_$i.json > $OUT/hw_${side}_$i.txt 2>&1
  done
done

