#!/usr/bin/env bash
# Microcode coverage as one lcov report: the example runs (the demo, every stream under
# testbench/fixtures/streams/, the benchmark's ALU and QEE-triangle streams, each run with
# `pp5 run --coverage`) and, with --suite, every simulation of the whole test suite
# (scripts/test.sh: the Rust tests and the Python ones, each board of the shipped microcode
# counted through PP5_MICROCODE_COVERAGE, sim/src/microcode_view/suite_coverage.rs), merged with
# `lcov -a` and rendered with `genhtml` (Debian package lcov). Prints the routines of the
# shipped microcode that no run executed.
#
#   scripts/microcode-coverage.sh [--suite] [OUT_DIR]   # default target/microcode-coverage
#
# --suite runs the whole test suite (about 10-15 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
suite=
if [ "${1:-}" = --suite ]; then suite=1; shift; fi
out=${1:-target/microcode-coverage}
command -v genhtml >/dev/null || { echo "genhtml is not installed (apt-get install lcov)" >&2; exit 1; }
cargo build --profile ci --quiet --bin pp5
pp5=target/ci/pp5
mkdir -p "$out/runs"
rm -f "$out"/runs/*.info
if [ -n "$suite" ]; then
  # Every test process writes its own suite-<pid>-<image>.info into runs/.
  PP5_MICROCODE_COVERAGE="$(cd "$out/runs" && pwd)" scripts/test.sh
fi
"$pp5" demo --wave "$out/runs/demo.vcd" --coverage "$out/runs/demo.info" >/dev/null 2>&1
for s in testbench/fixtures/streams/*.pp5s; do
  n=$(basename "$s" .pp5s)
  "$pp5" run "$s" --coverage "$out/runs/$n.info" >/dev/null 2>&1 || true
done
"$pp5" bench --reps 20 --save-streams "$out/runs" >/dev/null
for s in "$out/runs/alu.bin" "$out/runs/triangles.pp5s"; do
  n=$(basename "${s%.*}")
  "$pp5" run "$s" --coverage "$out/runs/$n.info" >/dev/null 2>&1 || true
done
args=()
for f in "$out"/runs/*.info; do args+=(-a "$f"); done
# Keep the branch records: lcov 1.x calls the setting lcov_branch_coverage (and silently
# ignores branch_coverage), 2.x branch_coverage.
case "$(lcov --version)" in
  *"version 1."*) rc=lcov_branch_coverage=1 ;;
  *) rc=branch_coverage=1 ;;
esac
lcov --quiet "${args[@]}" -o "$out/all.info" --rc "$rc"
genhtml --quiet --branch-coverage "$out/all.info" -o "$out/html"
echo "report: $out/html/index.html"
# lcov -a keeps one section per test name: sum the counts over them.
echo "routines no run executed:"
awk -F'[:,]' '/^SF:/ {f=$2} /^FNDA:/ {n[$3 "  (" f ")"] += $2}
  END {for (k in n) if (n[k] == 0) print "  " k}' "$out/all.info" | sed "s#$(pwd)/##" | sort
echo "source lines no run executed, per file:"
awk -F'[:,]' '/^SF:/ {f=$2} /^DA:/ {n[f ":" $2] += $3}
  END {for (k in n) {split(k, p, ":"); t[p[1]]++; if (n[k] == 0) z[p[1]]++}
       for (f in t) print "  " f ": " z[f] + 0 " of " t[f]}' "$out/all.info" | sed "s#$(pwd)/##" | sort
echo "branch outcomes no run saw (taken or not taken), per file:"
awk -F'[:,]' '/^SF:/ {f=$2} /^BRDA:/ {n[f ":" $2 ":" $4] += ($5 == "-" ? 0 : $5)}
  END {for (k in n) {split(k, p, ":"); t[p[1]]++; if (n[k] == 0) z[p[1]]++}
       for (f in t) print "  " f ": " z[f] + 0 " of " t[f]}' "$out/all.info" | sed "s#$(pwd)/##" | sort
