import Host
import Logging
import ServiceLifecycle
import SystemdNotify
import UnixSignals

/// SIGHUP (`systemctl reload`) applies the `--regions` file again. A file that cannot be read or holds a request
/// the service would refuse changes nothing (the error is logged with what to fix) and the service keeps running.
/// Without `--regions`, SIGHUP is logged and ignored rather than ending the process (its default action).
struct RegionsReloader: Service {
    let regions: RegionsFile?
    let host: EngineHost
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            guard let regions else {
                logger.notice("SIGHUP: no --regions file to apply again; ignored")
                continue
            }
            SystemdNotifier.reloading(status: "applying \(regions.path)")
            do {
                let summary = try await regions.apply(to: host, logger: logger)
                SystemdNotifier.reloaded(status: "regions file applied: \(summary)")
            } catch {
                logger.error("SIGHUP: the regions file was not applied; the requests are as before", metadata: ["error": "\(error)"])
                SystemdNotifier.reloaded(status: "regions file not applied: \(error)")
            }
        }
    }
}
