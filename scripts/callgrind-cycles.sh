#!/usr/bin/env bash
# Instructions per simulated 40 MHz cycle of `pp5 bench`'s two streams (the ALU-heavy stream and
# the QEE triangles), tracing off, counted by callgrind: repeatable on a noisy machine, where
# wall-clock figures move by 10-30% (docs/timing.md, "Simulator speed").
#
#   scripts/callgrind-cycles.sh [REPS]      # default 500 rounds: about 100 k ALU cycles
#
# Counts the instructions of the board's clock (pp5_sim::engine::Sim::tick, every cycle of the
# boot and the stream; not reading the stream, assembling the microcode or the report) and
# divides by the cycles the run reports.
# valgrind does not decode AVX-512, which `target-cpu=native` (.cargo/config.toml) uses where
# the machine has it, so the script builds an x86-64-v3 (AVX2) binary into target/callgrind.
# PP5=path/to/pp5 measures another build (built the same way) on the same streams, which this
# checkout's build writes.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-500}
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
ours=target/callgrind/release/pp5
CARGO_TARGET_DIR=target/callgrind RUSTFLAGS="-C target-cpu=x86-64-v3" \
  cargo build --release --quiet --bin pp5
pp5=${PP5:-$ours}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$ours" bench --reps "$reps" --save-streams "$dir" >/dev/null
printf '%-16s %12s %16s %14s\n' stream cycles instructions "per cycle"
for f in alu.bin triangles.pp5s; do
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
    --toggle-collect='pp5_sim::engine::Sim::tick' \
    "$pp5" run "$dir/$f" --report json >"$dir/report.json" 2>"$dir/valgrind.log" || {
      cat "$dir/valgrind.log" >&2; exit 1; }
  cycles=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$dir/report.json")
  ir=$(awk '/^(summary|totals):/ {print $2; exit}' "$dir/cg.out")
  python3 -c 'import sys; f,c,i=sys.argv[1],int(sys.argv[2]),int(sys.argv[3]); print(f"{f:<16} {c:>12} {i:>16} {i/c:>14.0f}")' "$f" "$cycles" "$ir"
done
