#!/usr/bin/env bash
# Write the flow-control example waveform (waves/examples/flow.vcd + flow.gtkw): the GCDSTEPS
# part of `pp5 demo`, traced with the IGC state, the flow-control unit and four probe pixels
# whose trip counts differ (0, 3, 7 and 64 steps), with the source line of each flow-control
# construct beside the PC (renderer.igc.uinst.at/.src). Open it with
#   gtkwave waves/examples/flow.vcd waves/examples/flow.gtkw
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-waves/examples/flow.vcd}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The window: GCDSTEPS starts at cycle 5664 of the demo and takes 6371 cycles.
cargo run --release -q -- demo --wave "$tmp/flow.vcd" --rows 0 --window 5660:12040 \
  --scope renderer.igc.state --scope renderer.igc.upc --scope renderer.igc.uinst.at \
  --scope renderer.igc.uinst.src --scope renderer.igc.fc \
  --probe 0,0 --probe 5,7 --probe 12,30 --probe 1,126 \
  --scope renderer.pixel_0_0 --scope renderer.pixel_5_7 \
  --scope renderer.pixel_12_30 --scope renderer.pixel_1_126 >/dev/null 2>"$tmp/log" ||
  { cat "$tmp/log" >&2; exit 1; }
cp "$tmp/flow.vcd" "$out"
cp "$tmp/flow.gtkw" "${out%.*}.gtkw"
echo "$out"
