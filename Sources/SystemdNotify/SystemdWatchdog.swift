/// Feeds systemd's watchdog only while the service makes progress: each ping follows a `progress` check that
/// succeeded (for `serve`, a round trip through the engine's actor, which runs on the engine's own thread). A check
/// that does not return, because that thread is wedged, sends no ping, and systemd kills and restarts the service
/// `WatchdogSec` after the last one; a check that returns false sends none either.
public struct SystemdWatchdog: Sendable {
    /// Time between checks: half the watchdog's interval, so one slow check does not miss it.
    public let period: Duration
    let progress: @Sendable () async -> Bool
    let ping: @Sendable () -> Void

    /// - Parameters:
    ///   - interval: the unit's `WatchdogSec` (`SystemdNotifier.watchdogInterval`).
    ///   - progress: true when the service made progress; may take as long as it must.
    ///   - ping: sends the ping (`SystemdNotifier.watchdog`; tests count them).
    public init(interval: Duration, progress: @escaping @Sendable () async -> Bool,
                ping: @escaping @Sendable () -> Void = { SystemdNotifier.watchdog() }) {
        self.period = interval / 2
        self.progress = progress
        self.ping = ping
    }

    /// Checks and pings until cancelled.
    public func run() async {
        while !Task.isCancelled {
            if await progress() { ping() }
            do { try await Task.sleep(for: period) } catch { return }
        }
    }
}
