#!/usr/bin/env bash
# Headless screenshot of a waveform with its .gtkw, to check what a newcomer sees.
# Needs the Debian packages gtkwave, xvfb and imagemagick.
#   scripts/gtkwave-screenshot.sh waves/examples/demo.vcd out.png
set -euo pipefail
wave="$1"; png="${2:-gtkwave.png}"
gtkw="${wave%.*}.gtkw"
png="$(realpath -m "$png")"
cd "$(dirname "$wave")"
xvfb-run -a -s "-screen 0 1400x900x24" bash -c "
  gtkwave '$(basename "$wave")' '$(basename "$gtkw")' >/dev/null 2>&1 &
  sleep 5; import -window root '$png'; kill %1"
echo "$png"
