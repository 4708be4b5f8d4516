#!/bin/sh
# The scenario the test asserts on. Part 1: hci0 advertises an iBeacon; `geotrigger scan` listens on hci1 with a beacon
# region (exitTimeout 3 s); reports with realistic RSSI and repeats are also injected on hci1 with btvirt's test
# vendor command (OGF 0x3f OCF 0x010: 00 = test event, 3e = LE Meta, then the LE Advertising Report parameters).
# Parts 1, 2 and 2b scan over raw HCI (no bluetoothd yet); parts 3, 3b and 4 through bluetoothd over D-Bus, with
# bluetoothctl scanning the same adapter.
UUID="e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0"
# Wall-clock time in microseconds (busybox date has no %N): injection times, to measure each backend's latency.
now() { adjtimex | awk '/tv_sec/{s=$2} /tv_usec/{u=$2} END{printf "%d.%06d\n", s, u}'; }
# inject ADAPTER EVENT-TYPE ADDRESS-BYTE MAJOR MINOR RSSI: one LE Advertising Report through btvirt's test command.
inject() {
    hcitool -i "$1" cmd 0x3f 0x010 00 3e 02 01 "$2" 01 "$3" 00 00 ee ff c0 1e 02 01 06 1a ff 4c 00 02 15 $UUID 00 "$4" 00 "$5" c5 "$6" >/dev/null
}
# burst ADAPTER ADDRESS-BYTE TIMES-FILE: 20 non-connectable reports (major 7, minor 1…20), one every 0.2 s.
burst() {
    for i in $(seq 1 20); do
        now >>"$3"
        inject "$1" 03 "$2" 07 "$(printf %02x "$i")" c4
        sleep 0.2
    done
}
# wait_scanning ERR-FILE: until a scanner's log says it is scanning (under emulation a start takes seconds); sets n.
wait_scanning() {
    n=0
    while ! grep -q "scanning on" "$1" 2>/dev/null && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
}
# advertise: hci0 advertises the iBeacon major 42 minor 43: parameters (100 ms, non-connectable), data (flags +
# iBeacon), enable.
advertise() {
    hcitool -i hci0 cmd 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00 >/dev/null
    hcitool -i hci0 cmd 0x08 0x0008 1e 02 01 06 1a ff 4c 00 02 15 $UUID 00 2a 00 2b c5 00 >/dev/null
    hcitool -i hci0 cmd 0x08 0x000a 01 >/dev/null
}
# silent_stop: hci0 stops advertising; after a silence longer than the 3 s exit timeout (the scanner must report the
# exit on its own clock) the scanner $SCAN is stopped. Bounded: a scanner that does not stop within 3 s is reported
# by its missing summary line, not waited for.
silent_stop() {
    hcitool -i hci0 cmd 0x08 0x000a 00 >/dev/null
    sleep 6
    kill -INT $SCAN 2>/dev/null
    sleep 3
}
# Bring hci0 up (a short scan with --up), then start the scanner under test on hci1.
geotrigger scan --adapter hci0 --up --duration 0.2 --observer setup >/dev/null 2>/out/setup.err
geotrigger scan --adapter hci1 --up --observer gw-1 --regions /regions.json --sightings /out/sightings.ndjson >/out/notifications.ndjson 2>/out/scan.err &
SCAN=$!
# Wait until it is listening (under emulation a start takes seconds), then longer than exitTimeout, so the region
# counts as outside and the first sighting is an entry.
wait_scanning /out/scan.err
echo "scanner listening after $n polls"
sleep 4
advertise
# Injected reports on hci1: ADV_IND from random address C0:FF:EE:00:00:02, RSSI -60 -62 -61 -65 -63 dBm.
for rssi in c4 c2 c3 bf c1; do
    now >>/out/hci.times
    inject hci1 00 02 2a 2b $rssi
    sleep 0.5
done
silent_stop

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

# A scan with BACKEND on hci1 (observer gw-BACKEND) while a burst of 20 reports (address byte CODE) is injected:
# its sightings in /out/BACKEND-burst.ndjson, the injection times in /out/BACKEND-burst.times.
burst_scan() {
    geotrigger scan --backend "$1" --adapter hci1 --observer "gw-$1" >"/out/$1-burst.ndjson" 2>"/out/$1-burst.err" &
    SCAN=$!
    wait_scanning "/out/$1-burst.err"
    sleep 1
    burst hci1 "$2" "/out/$1-burst.times"
    sleep 2
    kill -INT $SCAN 2>/dev/null
    sleep 2
}

# Part 2b: the rate and latency of raw HCI, for comparison with the D-Bus backend below: a burst of 20 reports.
burst_scan hci 05

# Part 3: bluetoothd owns the adapters, as on a gateway. The system bus (a minimal root-only configuration) and
# bluetoothd start; bluetoothctl scans hci1 (another D-Bus client, its own discovery session and filter) while
# `geotrigger scan --backend dbus` listens on the same adapter.
dbus-daemon --config-file=/etc/dbus-system.conf --nofork --nopidfile >/out/dbus.log 2>&1 &
n=0
while [ ! -S /run/dbus/system_bus_socket ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
/usr/libexec/bluetooth/bluetoothd -n >/out/bluetoothd.log 2>&1 &
n=0
while [ "$(bluetoothctl list 2>/dev/null | grep -c Controller)" -lt 2 ] && [ $n -lt 150 ]; do sleep 0.2; n=$((n + 1)); done
echo "bluetoothd ready after $n polls"
bluetoothctl list
# What bluetoothd sends, recorded for the mapping's unit tests (BlueZDBusTests) and for reading when this fails.
dbus-monitor --system "type='signal',sender='org.bluez'" >/out/dbus-monitor.log 2>&1 &
MONITOR=$!
# hci1 is btvirt's second controller, 00:AA:01:01:00:01 (bluetoothctl list). The sleep keeps bluetoothctl (and its discovery) alive.
{ echo "select 00:AA:01:01:00:01"; echo "scan on"; sleep 120; } | bluetoothctl >/out/bluetoothctl.log 2>&1 &
BTCTL=$!
sleep 2
geotrigger scan --backend dbus --adapter hci1 --up --observer gw-2 --regions /regions.json \
    --sightings /out/dbus-sightings.ndjson >/out/dbus-notifications.ndjson 2>/out/dbus-scan.err &
SCAN=$!
wait_scanning /out/dbus-scan.err
echo "dbus scanner listening after $n polls"
sleep 4
advertise
# Non-connectable reports (type 03): the kernel's discovery is an active scan, which holds a connectable report back
# until its scan response or the next report. The third repeats the second exactly: only DuplicateData passes it.
for rssi in c4 c2 c2 bf c1; do
    now >>/out/dbus.times
    inject hci1 03 04 2a 2b $rssi
    sleep 0.5
done
silent_stop

# Part 3b: the same burst as part 2b, through bluetoothd (bluetoothctl still scanning).
burst_scan dbus 06

# Part 4: `serve --bluetooth hci1 --backend dbus`, as part 2 but through bluetoothd, bluetoothctl still scanning.
geotrigger serve --bluetooth hci1 --backend dbus --database /tmp/d.sqlite --listen 127.0.0.1:8081 \
    --sink ndjson:/out/dbus-serve.ndjson --log-level notice 2>/out/dbus-serve.err &
SERVE=$!
n=0
while ! wget -q -O /dev/null http://127.0.0.1:8081/readyz 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
echo "dbus serve ready after $n polls"
wget -q -O /out/dbus-serve-post.json --header "Content-Type: application/json" --post-file /regions.json http://127.0.0.1:8081/v1/requests
sleep 4
for rssi in c4 c2 c3; do
    inject hci1 03 07 2a 2b $rssi
    sleep 0.5
done
sleep 6
kill -TERM $SERVE 2>/dev/null
n=0
while kill -0 $SERVE 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
kill $BTCTL $MONITOR 2>/dev/null

echo "=== SIGHTINGS BEGIN"; cat /out/sightings.ndjson; echo "=== SIGHTINGS END"
echo "=== NOTIFICATIONS BEGIN"; cat /out/notifications.ndjson; echo "=== NOTIFICATIONS END"
echo "=== STDERR BEGIN"; cat /out/setup.err /out/scan.err; echo "=== STDERR END"

echo "=== HCI-TIMES BEGIN"; cat /out/hci.times; echo "=== HCI-TIMES END"
echo "=== HCI-BURST BEGIN"; cat /out/hci-burst.ndjson; echo "=== HCI-BURST END"
echo "=== HCI-BURST-TIMES BEGIN"; cat /out/hci-burst.times; echo "=== HCI-BURST-TIMES END"
echo "=== DBUS-SIGHTINGS BEGIN"; cat /out/dbus-sightings.ndjson; echo "=== DBUS-SIGHTINGS END"
echo "=== DBUS-NOTIFICATIONS BEGIN"; cat /out/dbus-notifications.ndjson; echo "=== DBUS-NOTIFICATIONS END"
echo "=== DBUS-TIMES BEGIN"; cat /out/dbus.times; echo "=== DBUS-TIMES END"
echo "=== DBUS-BURST BEGIN"; cat /out/dbus-burst.ndjson; echo "=== DBUS-BURST END"
echo "=== DBUS-BURST-TIMES BEGIN"; cat /out/dbus-burst.times; echo "=== DBUS-BURST-TIMES END"
echo "=== DBUS-SERVE BEGIN"; cat /out/dbus-serve.ndjson; echo "=== DBUS-SERVE END"
echo "=== DBUS STDERR BEGIN"; cat /out/hci-burst.err /out/dbus-scan.err /out/dbus-burst.err /out/dbus-serve-post.json; echo
cat /out/dbus-serve.err /out/dbus.log /out/bluetoothd.log; echo "=== DBUS STDERR END"
echo "=== BLUETOOTHCTL BEGIN"; cat /out/bluetoothctl.log; echo "=== BLUETOOTHCTL END"
echo "=== DBUS-MONITOR BEGIN"; head -c 60000 /out/dbus-monitor.log; echo "=== DBUS-MONITOR END"
