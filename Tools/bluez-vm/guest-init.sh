#!/bin/sh
# /init of the test guest: loads Bluetooth, starts BlueZ's controller emulator with two LE controllers sharing one
# emulated air, runs the scenario, prints its results between markers on the serial console, powers off.
export PATH=/bin:/usr/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp /out
for m in crc16 ecc rfkill ecdh_generic bluetooth hci_vhci af_alg algif_hash algif_skcipher ecb cmac; do
    insmod /modules/$m.ko 2>/dev/null || echo "insmod $m failed"
done
btvirt -l2 >/out/btvirt.log 2>&1 &
sleep 2
sh /scenario.sh
echo "RESULT scenario finished"
poweroff -f
