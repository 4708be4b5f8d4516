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
