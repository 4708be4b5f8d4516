#!/usr/bin/env bash
# Installs what GeoTrigger needs to build and test on Debian 12 (run as root). Idempotent: a second run installs
# nothing. The Swift toolchain itself (6.1 or later) must already be on PATH. `--package` adds what Tools/package.sh
# needs, `--install-test` what Tools/install-test.sh needs (debootstrap, systemd-nspawn, curl).
# `--tests` adds what only the test suite needs: headless Chromium (the HTML report test), openssl (the TLS
# test makes its certificate and the MQTT tests their CA), python3-venv (Tools/api-check.sh), the mosquitto broker
# and its clients (the MQTT tests start their own broker), gpsd and python3-gps with gpsfake (the gpsd input test
# replays a receiver log through a real gpsd; gpsfake ships in gpsd-clients, which pulls ~70 GUI packages, so only
# its files are unpacked, into /var/cache/geotrigger/gpsd-clients). `--bench` adds the mosquitto broker, PostgreSQL 15 + PostGIS 3 and psycopg2
# (Tools/benchmark.sh's delivery step starts its own). `--tests` and `--bench` add nats-server: the cluster tests and the
# scale-out benchmark start their own 3-node JetStream cluster on loopback. librdkafka-dev is always installed: the
# Kafka path builds on it, and its mock cluster is what the Kafka tests run against (Debian 12 has no Kafka broker).
set -euo pipefail

packages=(pkg-config libgeos-dev libbluetooth-dev libsqlite3-dev libmosquitto-dev libnats-dev librdkafka-dev libsystemd-dev)
case "${1:-}" in
    # Tools/package.sh: strip, readelf, nm and size (dpkg-deb is part of dpkg), patchelf (SwiftPM's $ORIGIN runpath).
    --package) packages+=(binutils patchelf) ;;
    # Tools/install-test.sh: a Debian 12 root made with debootstrap and booted with systemd-nspawn; curl talks to it.
    --install-test) packages+=(binutils patchelf debootstrap systemd-container curl xz-utils) ;;
    --tests) packages+=(chromium openssl python3-venv mosquitto mosquitto-clients gpsd python3-gps nats-server) ;;
    --bench) packages+=(mosquitto postgresql-15-postgis-3 python3-psycopg2 nats-server) ;;
esac
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    if [ ! -d /var/lib/apt/lists ] || [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v lock)" ]; then
        apt-get update -qq
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi
command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6.1 or later is required)" >&2; exit 1; }
if [ "${1:-}" = "--tests" ]; then
    clients=/var/cache/geotrigger/gpsd-clients
    if [ ! -x "$clients/usr/bin/gpsfake" ]; then
        echo "setup: unpacking gpsfake (gpsd-clients) into $clients" >&2
        work=$(mktemp -d)
        (cd "$work" && apt-get download gpsd-clients >/dev/null 2>&1 || { apt-get update -qq && apt-get download gpsd-clients >/dev/null; })
        mkdir -p "$clients"
        dpkg-deb -x "$work"/gpsd-clients_*.deb "$clients"
        rm -rf "$work"
    fi
fi
