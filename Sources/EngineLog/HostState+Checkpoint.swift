import JSON
import Journal
import TriggerEngine

/// The checkpoint body: the host's part (requests with their JSON and numbers, in add order; delivered requests)
/// then the engine's (`TriggerEngine.encodeCheckpoint`).
extension HostState {
    static let checkpointVersion: UInt8 = 1

    public func encodeCheckpoint() -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 20)
        w.u8(Self.checkpointVersion)
        let pending = engine.pendingRequestStates
        w.u32(UInt32(pending.count))
        for (r, s) in pending {
            w.string(requestJSON[r.identifier] ?? "{}")
            w.u64(s.revision)
            w.u64(s.firings)
            w.u64(s.addedGeneration)
            w.timestamp(s.addedAt)
        }
        let delivered = engine.delivered
        w.u32(UInt32(delivered.count))
        for d in delivered {
            w.string(deliveredJSON[d.request.identifier] ?? "{}")
            w.string(d.device)
            w.timestamp(d.deliveredAt)
        }
        engine.encodeCheckpoint(into: &w)
        return w.bytes
    }

    /// Restores a fresh state from a checkpoint body; throws what is wrong with it.
    public func restoreCheckpoint(_ body: [UInt8]) throws -> (requests: Int, delivered: Int) {
        var r = ByteReader(body)
        guard try r.u8() == Self.checkpointVersion else { throw PersistenceError(device: "", reason: "unknown checkpoint version") }
        let requests = Int(try r.u32())
        // One batch: the region index is built once at its end, not grown (and rebuilt) request by request.
        try engine.addingInBatch {
            for _ in 0..<requests {
                let json = try r.string()
                let state = TriggerEngine.RequestState(revision: try r.u64(), firings: try r.u64(), addedGeneration: try r.u64(),
                                                       addedAt: try r.timestamp())
                let request = try decoder.decodeRequest(jsonText: json)
                try engine.restore(request, state: state)
                requestJSON[request.identifier] = json
            }
        }
        let delivered = Int(try r.u32())
        for _ in 0..<delivered {
            let json = try r.string(), device = try r.string(), at = try r.timestamp()
            let request = try decoder.decodeRequest(jsonText: json)
            engine.restoreDelivered(DeliveredRequest(restoring: request, deliveredAt: at, device: device))
            deliveredJSON[request.identifier] = json
        }
        try engine.restoreCheckpoint(from: &r)
        guard r.isAtEnd else { throw PersistenceError(device: "", reason: "\(r.remaining) bytes after the checkpoint's end") }
        return (requests, delivered)
    }
}
