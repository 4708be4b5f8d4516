import CSystemd

/// Tells the service manager about this process through `sd_notify` (a datagram to `$NOTIFY_SOCKET`): ready,
/// stopping, a status line, watchdog pings. Outside a `Type=notify` unit (`NOTIFY_SOCKET` unset) every call does
/// nothing and returns false, so the service runs the same by hand.
public enum SystemdNotifier {
    /// Sends `state` (`KEY=VALUE` lines); true when it was sent, false when there is no service manager to tell or
    /// the send failed.
    @discardableResult
    public static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// Startup is over: settings checked, state restored, the API listening.
    @discardableResult
    public static func ready(status: String) -> Bool { notify("READY=1\nSTATUS=\(status)") }

    /// Shutdown began: systemd waits for the exit (up to `TimeoutStopSec`) rather than treating it as a crash.
    @discardableResult
    public static func stopping(status: String) -> Bool { notify("STOPPING=1\nSTATUS=\(status)") }

    /// Configuration is being read again (`systemctl reload`); `reloaded()` ends it.
    @discardableResult
    public static func reloading(status: String) -> Bool { notify("RELOADING=1\nSTATUS=\(status)") }

    @discardableResult
    public static func reloaded(status: String) -> Bool { notify("READY=1\nSTATUS=\(status)") }

    /// One watchdog ping (`WATCHDOG=1`).
    @discardableResult
    public static func watchdog() -> Bool { notify("WATCHDOG=1") }

    /// The unit's `WatchdogSec` when it set one for this process (`$WATCHDOG_USEC`, `$WATCHDOG_PID`); nil otherwise.
    public static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }
}
