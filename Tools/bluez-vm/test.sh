#!/usr/bin/env bash
# The real-kernel Bluetooth test: builds a self-contained `geotrigger`, boots Debian's kernel in QEMU with btvirt
# (Tools/bluez-vm/run-test.sh) and asserts on what `geotrigger scan` reported: a beacon-region entry from hci0's real
# advertisement, then (after injected reports with realistic RSSI) the exit once the air went quiet for exitTimeout.
set -euo pipefail
cd "$(dirname "$0")/../.."
Tools/setup.sh
swift build -c release --product geotrigger --static-swift-stdlib --scratch-path .build-static >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
Tools/bluez-vm/run-test.sh .build-static/release/geotrigger "$out"
python3 - "$out" <<'PY'
import json, sys
from datetime import datetime
out = sys.argv[1]
notes = [json.loads(l) for l in open(f"{out}/notifications.ndjson")]
def t(s): return datetime.fromisoformat(s.replace("Z", "+00:00"))
events = [(n["identifier"], n["trigger"]["event"]) for n in notes]
failures = []
if events != [("booth-42", "entry"), ("booth-42", "exit")]:
    failures.append(f"expected one entry then one exit, got {events}")
else:
    entry, exit_ = notes
    # The entry came from hci0's real advertisement through the emulated air (btvirt reports no RSSI).
    if entry["beacon"].get("address") != "00:AA:01:00:00:00": failures.append(f"entry evidence {entry['beacon']}")
    # The exit reports the last sighting heard: an injected report with realistic RSSI, 3 s (exitTimeout) earlier.
    b = exit_["beacon"]
    if b.get("address") != "C0:FF:EE:00:00:02" or not -65 <= b.get("rssi", 0) <= -60: failures.append(f"exit evidence {b}")
    if b.get("major") != 42 or b.get("minor") != 43: failures.append(f"identity {b}")
    gap = (t(exit_["firedAt"]) - t(b["timestamp"])).total_seconds()
    if abs(gap - 3) > 0.001: failures.append(f"exit fired {gap} s after the last sighting, not 3")
for f in failures: print("bluez-vm:", f, file=sys.stderr)
print(f"bluez-vm: events {events}")
print("1 passed, 0 failed" if not failures else "0 passed, 1 failed")
sys.exit(1 if failures else 0)
PY
