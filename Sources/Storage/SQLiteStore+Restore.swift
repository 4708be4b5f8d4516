import JSON
import GRDB
import Logging
import TriggerEngine

/// What a restore found, for the startup log line and tests.
public struct RestoreSummary: Sendable, Hashable {
    public var requests = 0
    public var delivered = 0
    public var devices = 0
    /// Rows that could not be read back (logged and skipped: one bad row must not keep the service down).
    public var skipped = 0
}

extension SQLiteStore {
    /// Loads the stored state into a new engine, in the order `TriggerEngine+Persistence` asks for.
    public func restore(into engine: TriggerEngine, decoder: RequestDecoder) throws -> RestoreSummary {
        let (counters, requests, delivered, devices) = try read { db in
            (try EngineMetaRepository().load(in: db), try RequestRepository().all(in: db),
             try DeliveredRepository().all(in: db), try DeviceStateRepository().all(in: db))
        }
        var summary = RestoreSummary()
        if let counters { engine.restore(counters: counters) }
        var batch: [(NotificationRequest, TriggerEngine.RequestState)] = []
        // Revision order is add order: the engine gets its requests back in the order it first had them.
        for r in requests.sorted(by: { $0.state.revision < $1.state.revision }) {
            do {
                batch.append((try decoder.decodeRequest(jsonText: r.json), r.state))
            } catch {
                summary.skipped += 1
                logger.error("stored request unreadable, skipped", metadata: ["identifier": "\(r.identifier)", "error": "\(error)"])
            }
        }
        for (request, state) in batch {
            do {
                try engine.restore(request, state: state)
                summary.requests += 1
            } catch {
                summary.skipped += 1
                logger.error("stored request rejected, skipped", metadata: ["identifier": "\(request.identifier)", "error": "\(error)"])
            }
        }
        for d in delivered {
            guard let request = try? decoder.decodeRequest(jsonText: d.json) else {
                summary.skipped += 1
                continue
            }
            engine.restoreDelivered(DeliveredRequest(restoring: request, deliveredAt: d.deliveredAt, device: d.device))
            summary.delivered += 1
        }
        for s in devices {
            do {
                try engine.restore(s)
                summary.devices += 1
            } catch {
                summary.skipped += 1
                logger.error("stored device unreadable, skipped", metadata: ["device": "\(s.device)", "error": "\(error)"])
            }
        }
        if let counters { engine.restore(counters: counters) }
        return summary
    }
}
