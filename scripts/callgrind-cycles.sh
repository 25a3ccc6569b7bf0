#!/usr/bin/env bash
# Instructions per simulated 40 MHz cycle of `pp5 bench`'s two streams (the ALU-heavy stream and
# the QEE triangles), counted by callgrind: repeatable on a noisy machine, where wall-clock
# figures move by 10-30% (docs/timing.md, "Simulator speed").
#
#   scripts/callgrind-cycles.sh [REPS]            # tracing off; default 500 rounds (~100 k ALU cycles)
#   TRACE=vcd scripts/callgrind-cycles.sh [REPS]  # the same runs writing a VCD (TRACE=fst: an FST)
#
# Tracing off, it counts the instructions of the board's clock (pp5_sim::engine::Sim::tick,
# every cycle of the boot and the stream; not reading the stream, assembling the microcode or
# the report) and divides by the cycles the run reports.
# With TRACE, each stream is run twice writing the waveform (all signals, the default probes),
# counted per thread (--separate-threads=yes), and it prints per cycle: `sim thr`, the
# simulation thread's clock and sample walk (Sim::tick, the waveform observer's hooks included,
# and WaveWriter::sample); and `whole`, every instruction of the process, both threads, start to
# end (what issue 27 item 7 compares between a VCD and an FST).
# valgrind does not decode AVX-512, which `target-cpu=native` (.cargo/config.toml) uses where
# the machine has it, so the script builds an x86-64-v3 (AVX2) binary into target/callgrind
# ($CARGO_TARGET_DIR/callgrind when CARGO_TARGET_DIR is set).
# CALLGRIND_KEEP=DIR keeps the untraced runs' callgrind files there (DIR/alu.bin.cg, ...) for
# callgrind_annotate.
# PP5=path/to/pp5 measures another build (built the same way) on the same streams, which this
# checkout's build writes.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-500}
trace=${TRACE:-}
case "$trace" in
  "" | vcd | fst) ;;
  *) echo "TRACE must be vcd or fst (or unset), not '$trace'" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
cg_target=${CARGO_TARGET_DIR:-target}/callgrind
ours=$cg_target/release/pp5
CARGO_TARGET_DIR=$cg_target RUSTFLAGS="-C target-cpu=x86-64-v3" \
  cargo build --release --quiet --bin pp5
pp5=${PP5:-$ours}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$ours" bench --reps "$reps" --save-streams "$dir" >/dev/null

cycles_of() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$1"
}

# The instructions of every thread of the callgrind run $1 (its files $1, $1-01, $1-02, ...).
total() {
  cat "$1"* | awk '/^totals:/ {s += $2} END {printf "%d\n", s}'
}

if [ -z "$trace" ]; then
  printf '%-16s %12s %16s %14s\n' stream cycles instructions "per cycle"
  for f in alu.bin triangles.pp5s; do
    valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
      --toggle-collect='pp5_sim::engine::Sim::tick' --toggle-collect='pp5_sim::engine::Sim::skip_still' \
      "$pp5" run "$dir/$f" --report json >"$dir/report.json" 2>"$dir/valgrind.log" || {
        cat "$dir/valgrind.log" >&2; exit 1; }
    if [ -n "${CALLGRIND_KEEP:-}" ]; then mkdir -p "$CALLGRIND_KEEP" && cp "$dir/cg.out" "$CALLGRIND_KEEP/$f.cg"; fi
    cycles=$(cycles_of "$dir/report.json")
    ir=$(awk '/^(summary|totals):/ {print $2; exit}' "$dir/cg.out")
    python3 -c 'import sys; f,c,i=sys.argv[1],int(sys.argv[2]),int(sys.argv[3]); print(f"{f:<16} {c:>12} {i:>16} {i/c:>14.0f}")' "$f" "$cycles" "$ir"
  done
  exit 0
fi

printf '%-16s %5s %10s %14s %16s %12s\n' stream trace cycles "sim thr/cyc" "whole run" "whole/cyc"
for f in alu.bin triangles.pp5s; do
  run=("$pp5" run "$dir/$f" --report json "--$trace" "$dir/wave.$trace")
  # The simulation thread's work per cycle: the clock and the sample walk.
  rm -f "$dir"/cg.*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.sim" \
    --toggle-collect='pp5_sim::engine::Sim::tick' \
    --toggle-collect='pp5_sim::trace::WaveWriter::sample*' \
    "${run[@]}" >"$dir/report.json" 2>"$dir/valgrind.log" || { cat "$dir/valgrind.log" >&2; exit 1; }
  sim=$(cat "$dir"/cg.sim-01 | awk '/^totals:/ {printf "%d\n", $2}')
  # The whole process, both threads.
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.all" \
    "${run[@]}" >"$dir/report.json" 2>"$dir/valgrind.log" || { cat "$dir/valgrind.log" >&2; exit 1; }
  whole=$(total "$dir/cg.all")
  cycles=$(cycles_of "$dir/report.json")
  python3 -c '
import sys
f, t, c, sim, whole = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print(f"{f:<16} {t:>5} {c:>10} {sim/c:>14.0f} {whole:>16} {whole/c:>12.0f}")
' "$f" "$trace" "$cycles" "$sim" "$whole"
  rm -f "$dir/wave.$trace" "$dir/wave.gtkw"
done
