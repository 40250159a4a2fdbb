#!/usr/bin/env bash
# The analysis engine's throughput in MB/s of source, in one process (no HTTP): the release
# build of crates/logscan/examples/throughput.rs over every file of realcode/, best of ROUNDS
# analyses, RUNS times. With BASE=<commit> the same example is also built against that commit's
# logscan, and the two binaries run alternately, so drift on a shared machine hits both alike.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=${BASE:-}
ROUNDS=${ROUNDS:-10}
RUNS=${RUNS:-3}
CORPUS=${CORPUS:-realcode}

if [[ ${1:-} == --help ]]; then
  echo "usage: scripts/bench-logscan.sh  (env: BASE=<commit to compare with> ROUNDS=$ROUNDS RUNS=$RUNS CORPUS=$CORPUS)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target=${CARGO_TARGET_DIR:-$PWD/target}

cargo build -q --release -p logscan --example throughput
cp "$target/release/examples/throughput" "$work/now"
sides=(now)
if [[ -n $BASE ]]; then
  mkdir "$work/base"
  git archive "$BASE" | tar -x -C "$work/base"
  mkdir -p "$work/base/crates/logscan/examples/support"
  cp crates/logscan/examples/throughput.rs "$work/base/crates/logscan/examples/"
  cp crates/logscan/examples/support/sources.rs "$work/base/crates/logscan/examples/support/"
  # A target directory of its own (kept for the next run): cargo names a path crate's build by
  # its place in the workspace, and the archive's old file times would pass for fresh.
  (cd "$work/base" && CARGO_TARGET_DIR=$target/bench-base cargo build -q --release -p logscan --example throughput)
  cp "$target/bench-base/release/examples/throughput" "$work/base-bin"
  sides=(base-bin now)
fi

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (above 1, the figures are floors)"
label() { if [[ $1 == base-bin ]]; then echo "at $BASE"; else echo "working tree"; fi; }
for run in $(seq "$RUNS"); do
  for side in "${sides[@]}"; do
    echo "run $run, $(label "$side"): $(ROUNDS=$ROUNDS "$work/$side" "$CORPUS")"
  done
done
