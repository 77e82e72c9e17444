#!/usr/bin/env bash
# README command 1: set up, build, and run every bundled case on every available backend.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/app/scatterctl run cases/ "$@"
