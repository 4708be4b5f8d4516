#!/bin/sh
# The scenario the test asserts on. Part 1: hci0 advertises an iBeacon; `geotrigger scan` listens on hci1 with a beacon
# region (exitTimeout 3 s); reports with realistic RSSI and repeats are also injected on hci1 with btvirt's test
# vendor command (OGF 0x3f OCF 0x010: 00 = test event, 3e = LE Meta, then the LE Advertising Report parameters).
UUID="e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0"
# Bring hci0 up (a short scan with --up), then start the scanner under test on hci1.
geotrigger scan --adapter hci0 --up --duration 0.2 --observer setup >/dev/null 2>/out/setup.err
geotrigger scan --adapter hci1 --up --observer gw-1 --regions /regions.json --sightings /out/sightings.ndjson >/out/notifications.ndjson 2>/out/scan.err &
SCAN=$!
# Wait until it is listening (under emulation a start takes seconds), then longer than exitTimeout, so the region
# counts as outside and the first sighting is an entry.
n=0
while ! grep -q "scanning on" /out/scan.err 2>/dev/null && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
echo "scanner listening after $n polls"
sleep 4
# Advertise major 42 minor 43 from hci0: parameters (100 ms, non-connectable), data (flags + iBeacon), enable.
hcitool -i hci0 cmd 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00 >/dev/null
hcitool -i hci0 cmd 0x08 0x0008 1e 02 01 06 1a ff 4c 00 02 15 $UUID 00 2a 00 2b c5 00 >/dev/null
hcitool -i hci0 cmd 0x08 0x000a 01 >/dev/null
# Injected reports on hci1: ADV_IND from random address C0:FF:EE:00:00:02, RSSI -60 -62 -61 -65 -63 dBm.
for rssi in c4 c2 c3 bf c1; do
    hcitool -i hci1 cmd 0x3f 0x010 00 3e 02 01 00 01 02 00 00 ee ff c0 1e 02 01 06 1a ff 4c 00 02 15 $UUID 00 2a 00 2b c5 $rssi >/dev/null
    sleep 0.5
done
hcitool -i hci0 cmd 0x08 0x000a 00 >/dev/null
# Silence longer than the 3 s exit timeout: the scanner must report the exit on its own clock.
sleep 6
kill -INT $SCAN 2>/dev/null
# Bounded: a scanner that does not stop within 3 s is reported by its missing summary line, not waited for.
sleep 3

# Part 2: the same air through `geotrigger serve --bluetooth hci1` (wall clock, SQLite, durable outbox): the request
# is registered over HTTP, the notifications leave through the outbox to an NDJSON sink, flushed on SIGTERM.
ifconfig lo 127.0.0.1 up
geotrigger serve --bluetooth hci1 --database /tmp/g.sqlite --listen 127.0.0.1:8080 --sink ndjson:/out/serve.ndjson \
    --log-level notice 2>/out/serve.err &
SERVE=$!
n=0
while ! wget -q -O /dev/null http://127.0.0.1:8080/readyz 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
echo "serve ready after $n polls"
wget -q -O /out/serve-post.json --header "Content-Type: application/json" --post-file /regions.json http://127.0.0.1:8080/v1/requests
# Longer than exitTimeout with the radio listening: the region counts as outside, so the first sighting is an entry.
sleep 4
for rssi in c4 c2 c3; do
    hcitool -i hci1 cmd 0x3f 0x010 00 3e 02 01 00 01 03 00 00 ee ff c0 1e 02 01 06 1a ff 4c 00 02 15 $UUID 00 2a 00 2b c5 $rssi >/dev/null
    sleep 0.5
done
# Silence past exitTimeout: the server's ticker fires the exit.
sleep 6
kill -TERM $SERVE 2>/dev/null
n=0
while kill -0 $SERVE 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
echo "=== SERVE BEGIN"; cat /out/serve.ndjson; echo "=== SERVE END"
echo "=== SERVE STDERR BEGIN"; cat /out/serve-post.json; echo; cat /out/serve.err; echo "=== SERVE STDERR END"

echo "=== SIGHTINGS BEGIN"; cat /out/sightings.ndjson; echo "=== SIGHTINGS END"
echo "=== NOTIFICATIONS BEGIN"; cat /out/notifications.ndjson; echo "=== NOTIFICATIONS END"
echo "=== STDERR BEGIN"; cat /out/setup.err /out/scan.err; echo "=== STDERR END"
