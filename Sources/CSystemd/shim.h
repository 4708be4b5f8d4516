// libsystemd's sd-bus (Debian's libsystemd-dev): the D-Bus client that BlueZDBus talks to bluetoothd through.
// Only non-variadic calls are used (messages are built with append_basic and containers), so no wrapper is needed.
#include <systemd/sd-bus.h>
