#!/usr/bin/env bash
# Fuzz every target (or the ones named) for SECONDS each with cargo-fuzz (libFuzzer) on the
# stable toolchain, and print the executions of each and in total (docs/testing.md).
#
#   scripts/fuzz-soak.sh [SECONDS] [TARGET...]     # default: 60 seconds, every target
#
# Before fuzzing it installs cargo-fuzz if missing and writes the seed corpus (from the
# fixtures and the demo) into testbench/fuzz/corpus/<target>/; the regression inputs under
# testbench/fixtures/fuzz/<target>/ are read as a second corpus. An input that makes a target
# panic, hang (-timeout) or run out of memory (-rss_limit_mb) is written to
# testbench/fuzz/artifacts/<target>/ and the script exits 1 after the other targets ran. The
# log of each target is in testbench/fuzz/logs/<target>.log.
set -uo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(text_stream binary_stream microcode_asm microcode_run board_ring wave_writers)
fi
fuzz=testbench/fuzz

# Longest input libFuzzer makes, per target: the text and binary targets get room for a few
# dozen commands (longer seeds are cut to it), the targets that read choices need less.
max_len() {
  case $1 in
    text_stream) echo 4096 ;;
    binary_stream | microcode_asm) echo 8192 ;;
    *) echo 1024 ;;
  esac
}

command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked || exit 1
cargo run --profile ci -q -p pp5-testbench --example fuzz_seeds -- "$fuzz/corpus" >/dev/null || exit 1
# Stable Rust: no sanitizer (AddressSanitizer needs nightly; safe Rust needs none). Debug
# assertions and overflow checks on (-a): an arithmetic overflow is a crash too.
opts=(--fuzz-dir "$fuzz" --sanitizer none --debug-assertions)
cargo fuzz build "${opts[@]}" || exit 1

mkdir -p "$fuzz/logs"
started="$fuzz/logs/.started"
touch "$started"
status=0
total=0
summary=""
for t in "${targets[@]}"; do
  corpora=("$fuzz/corpus/$t")
  [ -d "testbench/fixtures/fuzz/$t" ] && corpora+=("testbench/fixtures/fuzz/$t")
  log="$fuzz/logs/$t.log"
  echo "== $t: ${secs}s"
  cargo fuzz run "${opts[@]}" "$t" "${corpora[@]}" -- \
    -max_total_time="$secs" -max_len="$(max_len "$t")" -timeout=30 -rss_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  runs=${runs:-$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)}
  runs=${runs:-0}
  total=$((total + runs))
  if [ $rc -eq 0 ]; then
    verdict="ok"
  else
    verdict="FAILED (exit $rc): $(grep -m1 -E 'panicked at|ERROR: libFuzzer' "$log")"
    status=1
  fi
  line=$(printf '%-14s %12s executions  %s' "$t" "$runs" "$verdict")
  echo "$line"
  summary+="$line"$'\n'
done
echo
echo "== fuzz soak, ${secs}s per target"
printf '%s' "$summary"
printf '%-14s %12s executions\n' "total" "$total"
find "$fuzz/artifacts" -type f -newer "$started" 2>/dev/null | sed 's/^/artifact: /'
exit $status
