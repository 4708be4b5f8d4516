import CKafka
import Foundation
import Synchronization

/// The thread that serves a handle's callbacks (`rd_kafka_poll`) until stopped.
final class Poller: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(handle: OpaquePointer, name: String) {
        let box = HandleBox(handle)
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) { _ = rd_kafka_poll(box.handle, 50) }
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        finished.wait()
    }
}

/// A handle crossing to a thread of ours (librdkafka's handles are thread-safe).
struct HandleBox: @unchecked Sendable {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
}

extension Duration {
    /// Whole milliseconds, as librdkafka's timeouts take them.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
