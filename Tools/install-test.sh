#!/usr/bin/env bash
# The install test: a clean Debian 12 root without Swift (debootstrap, cached), booted with systemd in
# systemd-nspawn, where the package is installed, run and removed as an operator would:
#   apt install ./geotrigger_*.deb pulls only Debian packages (the root's one source is Debian's archive) and the
#   binaries load without a Swift toolchain; systemctl start (Type=notify: returns once READY) and /readyz 200; a fix
#   fires to the NDJSON sink; an edited regions file + systemctl reload changes what fires; kill -9 of the main PID
#   is restarted by systemd and every acknowledged notification is delivered; a stopped (wedged) process is killed by
#   the watchdog and restarted; a newer package keeps data and configuration; purge removes both.
# Usage: Tools/install-test.sh [OLD.deb NEW.deb]. Without arguments it runs Tools/package.sh twice, the second with a
# higher version (GEOTRIGGER_VERSION=OLD.1: only the version module is compiled again and both binaries relinked).
# The debootstrapped root is cached in /var/cache/geotrigger/install-test (DEBIAN_MIRROR overrides the mirror, which
# is otherwise the first Debian archive in apt's sources). The container shares the host's network (apt inside
# needs it); the service listens on a free loopback port. Prints each step with its time, "install-test: passed".
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/setup.sh --install-test
t0=$(date +%s)
step() { echo "install-test: [$(( $(date +%s) - t0 )) s] $*"; }

arch=$(dpkg --print-architecture)
if [ $# -ge 2 ]; then
    old=$1 new=$2
else
    Tools/package.sh
    old=$(ls -t out/geotrigger_*_"$arch".deb | head -n 1)
    GEOTRIGGER_VERSION="$(dpkg-deb -f "$old" Version).1" Tools/package.sh
    new=$(ls -t out/geotrigger_*_"$arch".deb | head -n 1)
fi
old_version=$(dpkg-deb -f "$old" Version)
new_version=$(dpkg-deb -f "$new" Version)
dpkg --compare-versions "$new_version" gt "$old_version" || { echo "install-test: $new_version is not newer than $old_version" >&2; exit 2; }
step "packages: $old ($old_version), $new ($new_version)"

# The root: debootstrap once (minbase with systemd, as a server install has it), kept as a tarball.
cache=/var/cache/geotrigger/install-test
tarball=$cache/bookworm-$arch-systemd.tar
if [ ! -f "$tarball" ]; then
    mirror=${DEBIAN_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -E '^(deb |URIs:)' | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n 1 | tr -d ' ')}
    [ -n "$mirror" ] || { echo "install-test: no Debian archive in apt's sources; set DEBIAN_MIRROR" >&2; exit 2; }
    step "debootstrap bookworm from $mirror (once; cached in $tarball)"
    mkdir -p "$cache"
    fresh=$(mktemp -d /var/tmp/geotrigger-debootstrap.XXXXXX)
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$fresh" "$mirror" >"$cache/debootstrap.log" 2>&1 \
        || { tail -20 "$cache/debootstrap.log" >&2; rm -rf "$fresh"; exit 1; }
    chmod 755 "$fresh"
    tar -C "$fresh" -cf "$tarball.new" . && mv "$tarball.new" "$tarball"
    rm -rf "$fresh"
fi
work=$(mktemp -d /var/tmp/geotrigger-install-test.XXXXXX)
root=$work/root
mkdir "$root"
tar -C "$root" -xf "$tarball"
# The tarball's "." is the 0700 folder debootstrap wrote into: / must be searchable by the system users.
chmod 755 "$root"
echo "geotrigger-install-test" >"$root/etc/hostname"
step "root unpacked ($(du -sm "$root" | cut -f1) MiB, no Swift: $( [ -e "$root/opt/swift" ] && echo present || echo absent))"

nspawn_pid=""
leader=""
cleanup() {
    if [ -n "$leader" ]; then nsenter -t "$leader" -a systemctl poweroff >/dev/null 2>&1 || true; fi
    if [ -n "$nspawn_pid" ]; then
        for _ in $(seq 1 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
        kill "$nspawn_pid" 2>/dev/null || true
        wait "$nspawn_pid" 2>/dev/null || true
    fi
    if [ -n "${INSTALL_TEST_KEEP:-}" ]; then echo "install-test: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() {
    echo "install-test: FAILED: $*" >&2
    if [ -n "$leader" ]; then
        guest systemctl status geotrigger --no-pager -l >&2 || true
        guest journalctl -u geotrigger --no-pager -n 60 >&2 || true
    fi
    exit 1
}
# A command inside the container: all its namespaces, a clean environment.
guest() { nsenter -t "$leader" -a -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# Boot. Not registered with machined (this host may have no systemd); commands enter the namespaces of its init.
systemd-nspawn -D "$root" -b --register=no --keep-unit -M geotrigger-it --console=pipe >"$work/console.txt" 2>&1 &
nspawn_pid=$!
for _ in $(seq 1 200); do
    leader=$(pgrep -P "$nspawn_pid" -x systemd || true)
    [ -n "$leader" ] && break
    kill -0 "$nspawn_pid" 2>/dev/null || { cat "$work/console.txt" >&2; fail "systemd-nspawn exited"; }
    sleep 0.1
done
[ -n "$leader" ] || fail "no init in the container"
# Its init may not answer on its bus yet right after it started.
state=""
for _ in $(seq 1 120); do
    state=$(guest systemctl is-system-running 2>/dev/null || true)
    [ "$state" = running ] || [ "$state" = degraded ] && break
    sleep 0.5
done
if [ "$state" != running ] && [ "$state" != degraded ]; then
    # Seen here with other builds running: dbus-daemon in the container cannot watch its configuration (inotify:
    # permission denied) and never finishes starting, so multi-user.target waits for it. The service needs neither
    # D-Bus nor that target (systemctl reaches systemd over its private socket): go on once basic.target is up.
    guest systemctl is-active basic.target >/dev/null || { cat "$work/console.txt" >&2; fail "the container's systemd is '$state' after 60 s"; }
    step "systemd is '$state' after 60 s (still waiting: $(guest systemctl list-jobs --no-legend | awk '{ print $2 }' | paste -sd ' ')); basic.target is active"
fi
step "booted with systemd ($state)"

guest apt-get update -qq >/dev/null || fail "apt-get update in the container"
cp "$old" "$root/root/old.deb"
cp "$new" "$root/root/new.deb"
guest apt-get install -y --no-install-recommends /root/old.deb >"$work/apt-install.txt" 2>&1 || { cat "$work/apt-install.txt" >&2; fail "apt install"; }
pulled=$(sed -n '/The following NEW packages will be installed:/,/upgraded/p' "$work/apt-install.txt" | sed '1d;$d' | tr -s ' \n' ' ')
step "installed $old_version; apt pulled:$pulled"
others=$(cat "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/* 2>/dev/null | grep -E '^(deb |URIs:)' | grep -vE '/debian/? ' || true)
[ -z "$others" ] || fail "apt in the container has sources that are not Debian's archive: $others"
guest sh -c 'dpkg -l | grep -i swift' && fail "a Swift package was installed"
[ -e "$root/opt/swift" ] && fail "/opt/swift exists in the container"
for exe in geotrigger geotrigger-serve; do
    linked=$(guest ldd "/usr/bin/$exe")
    [[ $linked == *"not found"* ]] && fail "$exe: $(grep 'not found' <<<"$linked")"
done
[ "$(guest geotrigger --version)" = "$old_version" ] || fail "geotrigger --version: $(guest geotrigger --version)"
[ "$(guest geotrigger serve --version)" = "$old_version" ] || fail "geotrigger serve --version: $(guest geotrigger serve --version)"
guest systemctl is-active geotrigger >/dev/null && fail "a first install started the service (it must wait for its configuration)"
getent_user=$(guest getent passwd geotrigger) || fail "no geotrigger user"
step "no Swift in the root; both binaries load and print $old_version; user: $getent_user"

# Configure as the README says: /etc/geotrigger/ (a free port: the container shares this host's network), then
# enable --now. A drop-in shortens the watchdog so its test takes seconds.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -i "s/127.0.0.1:8080/127.0.0.1:$port/" "$root/etc/geotrigger/settings.json"
mkdir -p "$root/etc/systemd/system/geotrigger.service.d"
printf '[Service]\nWatchdogSec=6\n' >"$root/etc/systemd/system/geotrigger.service.d/install-test.conf"
circle() { # identifier latitude longitude
    printf '{"identifier": "%s", "content": {"title": "{device} {event} %s"}, "trigger": {"type": "location", "repeats": true, "region": {"type": "circle", "id": "%s", "center": {"latitude": %s, "longitude": %s}, "radius": 100}}}' "$1" "$1" "$1" "$2" "$3"
}
echo "[$(circle zone-a 52.52 13.40)]" >"$root/etc/geotrigger/regions.json"
guest systemctl daemon-reload
started=$(date +%s%N)
guest systemctl enable --now geotrigger >/dev/null 2>&1 || fail "systemctl enable --now geotrigger"
step "systemctl enable --now returned after $(( ($(date +%s%N) - started) / 1000000 )) ms (Type=notify: once READY)"
api=http://127.0.0.1:$port
[ "$(curl -s -o /dev/null -w '%{http_code}' "$api/readyz")" = 200 ] || fail "/readyz is not 200"
[ "$(guest systemctl show -p StatusText --value geotrigger)" != "" ] || fail "no STATUS= from sd_notify"
step "/readyz 200; status: $(guest systemctl show -p StatusText --value geotrigger)"

sink=$root/var/lib/geotrigger/notifications.ndjson
now=$(date +%s)
fix() { # device seconds-offset latitude longitude
    printf '{"device": "%s", "timestamp": %s, "latitude": %s, "longitude": %s}\n' "$1" "$(( now + $2 ))" "$3" "$4"
}
post() { curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary @- "$api/v1/fixes"; }
wait_for() { # seconds description command...
    local seconds=$1 what=$2; shift 2
    for _ in $(seq 1 $(( seconds * 10 ))); do "$@" && return 0; sleep 0.1; done
    fail "$what (waited $seconds s)"
}
delivered() { grep -q "\"deliveryId\":\"$1/$2/" "$sink" 2>/dev/null; }
[ "$( (fix car-1 0 52.53 13.40; fix car-1 1 52.52 13.40) | post)" = 200 ] || fail "POST /v1/fixes"
wait_for 20 "car-1's entry into zone-a in the NDJSON sink" delivered zone-a car-1
step "a fix fired zone-a to the NDJSON sink"

# Reload: the file now holds zone-b only.
echo "[$(circle zone-b 52.50 13.30)]" >"$root/etc/geotrigger/regions.json"
guest systemctl reload geotrigger || fail "systemctl reload"
listed() { local r; r=$(curl -s "$api/v1/requests"); [[ $r == *'"zone-b"'* && $r != *'"zone-a"'* ]]; }
wait_for 20 "the reloaded file's requests (zone-b, not zone-a)" listed
[ "$( (fix car-2 2 52.53 13.40; fix car-2 3 52.52 13.40) | post)" = 200 ] || fail "POST car-2"
[ "$( (fix car-3 2 52.51 13.30; fix car-3 3 52.50 13.30) | post)" = 200 ] || fail "POST car-3"
wait_for 20 "car-3's entry into zone-b" delivered zone-b car-3
delivered zone-a car-2 && fail "car-2 entered zone-a after it was removed from the file"
step "reload: zone-a removed, zone-b added; car-3 fired zone-b, car-2 in zone-a fired nothing"

# kill -9: every fix answered 200 before the kill has its notification delivered after systemd's restart.
pid=$(guest systemctl show -p MainPID --value geotrigger)
acknowledged=0
for k in $(seq 1 20); do
    [ "$( (fix "truck-$k" 4 52.51 13.30; fix "truck-$k" 5 52.50 13.30) | post)" = 200 ] && acknowledged=$(( acknowledged + 1 ))
done
[ "$acknowledged" = 20 ] || fail "only $acknowledged of 20 batches were acknowledged"
guest sh -c "kill -9 $pid"  # the shell's kill: the root has no /bin/kill
restarted() { local p; p=$(guest systemctl show -p MainPID --value geotrigger); [ "$p" != 0 ] && [ "$p" != "$pid" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "$api/readyz")" = 200 ]; }
killed=$(date +%s%N)
wait_for 60 "a restart after kill -9" restarted
step "kill -9 $pid: restarted and ready after $(( ($(date +%s%N) - killed) / 1000000 )) ms (NRestarts $(guest systemctl show -p NRestarts --value geotrigger))"
all_delivered() { for k in $(seq 1 20); do delivered zone-b "truck-$k" || return 1; done; }
wait_for 30 "every acknowledged entry (20 trucks) delivered after the restart" all_delivered
step "all 20 acknowledged notifications delivered after kill -9 ($(wc -l <"$sink") lines in the sink)"

# The watchdog: a stopped process pings nothing (as a wedged engine would not); systemd kills it and restarts it.
pid=$(guest systemctl show -p MainPID --value geotrigger)
guest sh -c "kill -STOP $pid"
stopped=$(date +%s%N)
wait_for 60 "a restart by the watchdog" restarted
# Read whole, then searched: `grep -q` ending the pipe early would fail it under pipefail.
journal=$(guest journalctl -u geotrigger --no-pager)
grep -qi "watchdog timeout" <<<"$journal" || fail "no watchdog timeout in the journal"
step "SIGSTOP $pid: watchdog timeout, restarted and ready after $(( ($(date +%s%N) - stopped) / 1000000 )) ms (WatchdogSec=6)"

# Upgrade: data and configuration kept, the running service restarted on the new binaries.
lines_before=$(wc -l <"$sink")
pid=$(guest systemctl show -p MainPID --value geotrigger)
guest apt-get install -y /root/new.deb >"$work/apt-upgrade.txt" 2>&1 || { cat "$work/apt-upgrade.txt" >&2; fail "apt install (upgrade)"; }
[ "$(guest geotrigger serve --version)" = "$new_version" ] || fail "after the upgrade serve --version is $(guest geotrigger serve --version)"
grep -q "127.0.0.1:$port" "$root/etc/geotrigger/settings.json" || fail "the upgrade replaced the edited settings.json"
grep -q zone-b "$root/etc/geotrigger/regions.json" || fail "the upgrade replaced the edited regions.json"
wait_for 60 "the service restarted on the new package" restarted
[[ $(curl -s "$api/v1/requests") == *'"zone-b"'* ]] || fail "zone-b is gone after the upgrade"
[[ $(curl -s "$api/v1/devices/car-3") == *'"phase":"inside"'* ]] || fail "car-3's state is gone after the upgrade: $(curl -s "$api/v1/devices/car-3")"
[ "$(wc -l <"$sink")" -ge "$lines_before" ] || fail "the sink lost lines in the upgrade"
step "upgrade to $new_version: running the new binary, settings and regions kept, requests and device state kept"

guest apt-get purge -y geotrigger >"$work/apt-purge.txt" 2>&1 || { cat "$work/apt-purge.txt" >&2; fail "apt purge"; }
[ ! -e "$root/var/lib/geotrigger" ] || fail "purge left /var/lib/geotrigger: $(ls "$root/var/lib/geotrigger")"
[ ! -e "$root/etc/geotrigger" ] || fail "purge left /etc/geotrigger"
[ ! -e "$root/lib/systemd/system/geotrigger.service" ] || fail "purge left the unit"
curl -s -o /dev/null "$api/healthz" && fail "something still answers on port $port"
step "purge: /var/lib/geotrigger, /etc/geotrigger and the unit removed; nothing listens"
echo "install-test: passed in $(( $(date +%s) - t0 )) s"
