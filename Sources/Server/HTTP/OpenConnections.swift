import Logging
import NIOCore
import Synchronization

/// The HTTP connections open now, by the client's address: one address may hold at most
/// `ConnectionLimits.maximumConnectionsPerAddress` of them (the rest of the global bound stays for other clients),
/// and at shutdown the ones still open when the drain deadline passes are closed.
final class OpenConnections: Sendable {
    private struct State {
        var byAddress: [String: Int] = [:]
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state = Mutex(State())
    let perAddress: Int

    /// - Parameter perAddress: connections one address may hold; 0: no bound.
    init(perAddress: Int) {
        self.perAddress = perAddress
    }

    /// The key a client's connections are counted under: its IP address without the port.
    static func key(_ channel: any Channel) -> String {
        channel.remoteAddress?.ipAddress ?? "-"
    }

    /// Counts `channel` in if its address has room: the key it is counted under (for `release`, as a closed
    /// channel may no longer know its peer); nil: the caller closes it.
    func admit(_ channel: any Channel) -> String? {
        let key = Self.key(channel)
        return state.withLock { s in
            let open = s.byAddress[key, default: 0]
            if perAddress > 0, open >= perAddress { return nil }
            s.byAddress[key] = open + 1
            s.channels[ObjectIdentifier(channel)] = channel
            return key
        }
    }

    /// Counts an admitted channel out.
    func release(_ channel: any Channel, key: String) {
        state.withLock { s in
            guard s.channels.removeValue(forKey: ObjectIdentifier(channel)) != nil else { return }
            let open = s.byAddress[key, default: 1] - 1
            if open > 0 { s.byAddress[key] = open } else { s.byAddress.removeValue(forKey: key) }
        }
    }

    var count: Int { state.withLock { $0.channels.count } }

    /// Closes every connection still open; returns how many.
    @discardableResult
    func closeAll() -> Int {
        let channels = state.withLock { Array($0.channels.values) }
        for c in channels { c.close(promise: nil) }
        return channels.count
    }
}
