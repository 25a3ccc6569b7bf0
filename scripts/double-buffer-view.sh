#!/usr/bin/env bash
# Write the double-buffered workload's waveform (waves/examples/double_buffer.fst + .gtkw; FST
# because the run is long: 140,000 cycles):
# testbench/fixtures/streams/double_buffer.pp5s, where the IGC renders tiles while the BS
# port streams the previous ones out, synchronised by the semaphores. The view groups the
# BS port (parser, RxFIFO, transmitter), the two semaphores, the transfer unit, the IGC
# port's message unit and the IGC's state, and opens on the whole run. Open it with
#   gtkwave waves/examples/double_buffer.fst waves/examples/double_buffer.gtkw
# The transmitters' data words are left out to keep the example small: add
# --scope renderer.bs_port.tx to see them.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-waves/examples/double_buffer.fst}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cargo run --release -q -- run testbench/fixtures/streams/double_buffer.pp5s \
  --fst "$tmp/double_buffer.fst" --rows 0 --view 142000 \
  --scope renderer.status --scope renderer.igc.state --scope renderer.igc.cmd \
  --scope renderer.bs_port.parser --scope renderer.bs_port.rxfifo.level \
  --scope renderer.bs_port.tx.TxReady --scope renderer.bs_port.tx.busy \
  --scope renderer.bs_port.tx.kind \
  --scope renderer.bs_sem --scope renderer.igc_sem \
  --scope renderer.transfer.state --scope renderer.transfer.sector \
  --scope renderer.transfer.scanline --scope renderer.transfer.vbs_later \
  --scope renderer.transfer.completed \
  --scope renderer.igc_port.messages --scope renderer.igc_port.tx.kind \
  >"$tmp/report" 2>"$tmp/log" || { cat "$tmp/log" "$tmp/report" >&2; exit 1; }
cp "$tmp/double_buffer.fst" "$out"
cp "$tmp/double_buffer.gtkw" "${out%.*}.gtkw"
echo "$out"
