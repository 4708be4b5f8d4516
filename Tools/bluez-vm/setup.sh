#!/usr/bin/env bash
# Installs and unpacks what the real-kernel Bluetooth test needs (docs/bluez-vm.md): QEMU, busybox, cpio from Debian;
# Debian's own kernel, BlueZ (btvirt, hcitool, btmon, bluetoothd, bluetoothctl) and the D-Bus daemon are only unpacked,
# never installed (installing bluez drags in udev and systemd); so are the libraries they link, which `ldd` then
# finds in the cache on a host that lacks them.
# Idempotent; the cache lives in $GEOTRIGGER_VM_CACHE (default /var/cache/geotrigger-bluez-vm).
set -euo pipefail
cache=${GEOTRIGGER_VM_CACHE:-/var/cache/geotrigger-bluez-vm}
missing=()
for p in qemu-system-x86 busybox-static cpio; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The plain-flavour kernel linux-image-amd64 depends on (-cloud has no Bluetooth).
kernel=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
[ -n "$kernel" ] || { apt-get update -qq; kernel=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}'); }
# The marker names what was unpacked: a longer list below unpacks again.
marker="$cache/root/.unpacked-$kernel-dbus2"
if [ ! -f "$marker" ]; then
    mkdir -p "$cache/debs" "$cache/root"
    # Progress goes to stderr: this script's standard output is only the cache path.
    (cd "$cache/debs" && apt-get download -q "$kernel" bluez-test-tools bluez dbus-daemon dbus-bin libdbus-1-3 libexpat1 \
        libapparmor1 libaudit1 libcap-ng0 libselinux1 libglib2.0-0 libreadline8 libasound2 libdw1 >&2)
    for d in "$cache"/debs/*.deb; do dpkg -x "$d" "$cache/root"; done
    touch "$marker"
fi
echo "$cache"
