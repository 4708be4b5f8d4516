#!/usr/bin/env bash
# The main job on embedded defaults: replays the bundled demo drive (two trucks in Berlin, GPX) against the bundled
# regions and prints the notifications that fire, with a summary on stderr. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/setup.sh
# A debug build: the first run takes minutes rather than the quarter hour of an optimised build of the whole package,
# and Tools/test.sh reuses it. Production builds are optimised (README, "Building for production").
swift build --product geotrigger >&2
exec .build/debug/geotrigger replay Data/demo-requests.json Data/demo-drive.gpx --device-per-track --expect Data/demo-expected.ndjson "$@"
