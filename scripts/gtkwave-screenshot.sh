#!/usr/bin/env bash
# A PNG of GTKWave showing a waveform with its save file, on a headless X server: how
# docs/images/gtkwave-uinst-src.png was made (from `pp5 demo --view 30`).
#
#   scripts/gtkwave-screenshot.sh WAVE.vcd|fst SAVE.gtkw OUT.png [SECONDS]
#
# Needs the Debian packages gtkwave, xvfb, x11-apps (xwd) and netpbm (xwdtopnm, pnmtopng).
# SECONDS (default 8) is how long GTKWave gets to load the file before the picture is taken.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
wave=$1 save=$2 out=$3 wait=${4:-8}
for t in gtkwave xvfb-run xwd xwdtopnm pnmtopng; do
  command -v "$t" >/dev/null || { echo "$t is not installed (apt-get install gtkwave xvfb x11-apps netpbm)" >&2; exit 1; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2016 # expanded by the inner shell
xvfb-run -a -s "-screen 0 1400x900x24" bash -c '
  gtkwave "$1" "$2" >"$3/gtkwave.log" 2>&1 & pid=$!
  sleep "$4"
  xwd -root -silent >"$3/screen.xwd"
  kill "$pid"' _ "$wave" "$save" "$dir" "$wait"
xwdtopnm "$dir/screen.xwd" 2>/dev/null | pnmtopng >"$out"
echo "$out"
