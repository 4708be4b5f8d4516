#!/usr/bin/env bash
# Boots Debian's kernel in QEMU (TCG) with BlueZ's btvirt and runs `geotrigger scan` against the real kernel
# Bluetooth stack (docs/bluez-vm.md). Usage: run-test.sh GEOTRIGGER_BINARY OUT_DIR
# Writes OUT_DIR/console.txt, sightings.ndjson, notifications.ndjson and the D-Bus parts' files (dbus-*.ndjson, the
# bursts, the injection times, bluetoothctl.txt); exits non-zero if the guest did not finish.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$1
out=$2
mkdir -p "$out"
cache=$("$here/setup.sh")
root=$cache/root
kver=$(ls "$root/lib/modules" | head -1)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/libexec/bluetooth,modules,proc,sys,dev,tmp,out,lib64,lib/x86_64-linux-gnu,etc,run/dbus,var/lib/bluetooth}
cp /bin/busybox "$stage/bin/busybox"
for tool in sh mount insmod sleep cat echo kill mkdir poweroff grep ifconfig wget adjtimex awk seq printf; do
    ln -sf busybox "$stage/bin/$tool"
done
for m in lib/crc16 crypto/ecc net/rfkill/rfkill crypto/ecdh_generic net/bluetooth/bluetooth drivers/bluetooth/hci_vhci \
         crypto/af_alg crypto/algif_hash crypto/algif_skcipher crypto/ecb crypto/cmac; do
    f=$(ls "$root/lib/modules/$kver/kernel/$m.ko"* | head -1)
    case "$f" in
        *.xz) xz -dc "$f" >"$stage/modules/$(basename "$m").ko" ;;
        *.zst) zstd -dqc "$f" >"$stage/modules/$(basename "$m").ko" ;;
        *) cp "$f" "$stage/modules/$(basename "$m").ko" ;;
    esac
done
cp "$root/usr/bin/btvirt" "$root/usr/bin/hcitool" "$root/usr/bin/bluetoothctl" "$root/usr/bin/dbus-daemon" \
    "$root/usr/bin/dbus-monitor" "$stage/usr/bin/"
# bluetoothd and the system bus for the D-Bus backend (scenario.sh parts 3 and 4).
cp "$root/usr/libexec/bluetooth/bluetoothd" "$stage/usr/libexec/bluetooth/"
cp "$here/dbus-system.conf" "$stage/etc/dbus-system.conf"
# dbus-daemon and sd-bus want a machine id; a fixed one is fine in a throwaway guest.
echo 5eed0000000000000000000000b1e2ee >"$stage/etc/machine-id"
# dbus-daemon looks its own user up.
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"
cp "$binary" "$stage/usr/bin/geotrigger"
# `geotrigger serve` runs the geotrigger-serve executable beside geotrigger.
cp "$(dirname "$binary")/geotrigger-serve" "$stage/usr/bin/geotrigger-serve"
# Every shared library the binaries need, and the loader; the host's, else those setup.sh unpacked.
for b in "$stage"/usr/bin/* "$stage/usr/libexec/bluetooth/bluetoothd"; do
    LD_LIBRARY_PATH="$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu" ldd "$b" | awk '/=> \//{print $3} /^\s*\/lib/{print $1}' | while read -r lib; do
        # A library from the cache goes where the package puts it.
        dest=${lib#"$root"}
        mkdir -p "$stage$(dirname "$dest")"
        cp -L "$lib" "$stage$dest"
    done
done
cp -L /lib64/ld-linux-x86-64.so.2 "$stage/lib64/"
cp "$here/guest-init.sh" "$stage/init"
cp "$here/scenario.sh" "$stage/scenario.sh"
cp "$here/regions.json" "$stage/regions.json"
chmod +x "$stage/init"
(cd "$stage" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$out/initramfs.gz"
timeout "${VM_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -m 768 -smp 1 \
    -kernel "$root/boot/vmlinuz-$kver" -initrd "$out/initramfs.gz" \
    -append "console=ttyS0 quiet panic=-1 rdinit=/init" -display none -monitor none -no-reboot -nic none -serial stdio \
    </dev/null >"$out/console.log" 2>&1 || true
rm -f "$out/initramfs.gz"
tr -d '\r' <"$out/console.log" >"$out/console.txt"
sed -n '/=== SIGHTINGS BEGIN/,/=== SIGHTINGS END/p' "$out/console.txt" | grep '^{' >"$out/sightings.ndjson" || true
sed -n '/=== NOTIFICATIONS BEGIN/,/=== NOTIFICATIONS END/p' "$out/console.txt" | grep '^{' >"$out/notifications.ndjson" || true
sed -n '/=== SERVE BEGIN/,/=== SERVE END/p' "$out/console.txt" | grep '^{' >"$out/serve.ndjson" || true
# The D-Bus backend's parts, and the injection times (guest wall clock, seconds) the latencies are measured from.
for part in DBUS-SIGHTINGS DBUS-NOTIFICATIONS DBUS-SERVE HCI-BURST DBUS-BURST; do
    name=$(echo "$part" | tr 'A-Z' 'a-z')
    sed -n "/=== $part BEGIN/,/=== $part END/p" "$out/console.txt" | grep '^{' >"$out/$name.ndjson" || true
done
for part in HCI-TIMES DBUS-TIMES HCI-BURST-TIMES DBUS-BURST-TIMES; do
    name=$(echo "$part" | tr 'A-Z' 'a-z')
    sed -n "/=== $part BEGIN/,/=== $part END/p" "$out/console.txt" | grep -E '^[0-9]+\.[0-9]+$' >"$out/$name.txt" || true
done
sed -n '/=== BLUETOOTHCTL BEGIN/,/=== BLUETOOTHCTL END/p' "$out/console.txt" >"$out/bluetoothctl.txt" || true
grep -q "RESULT scenario finished" "$out/console.txt" || { echo "bluez-vm: the guest did not finish; see $out/console.txt" >&2; exit 1; }
