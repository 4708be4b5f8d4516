// libsystemd (Debian's libsystemd-dev): sd-bus, the D-Bus client that BlueZDBus talks to bluetoothd through, and
// sd-daemon, whose sd_notify tells systemd about readiness, stopping and the watchdog (SystemdNotify).
// Only non-variadic calls are used (messages are built with append_basic and containers; sd_notify, not
// sd_notifyf), so no wrapper is needed.
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
