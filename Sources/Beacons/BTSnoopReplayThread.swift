import Dispatch
import Foundation
import Synchronization
import TriggerEngine

/// `BeaconScanPipeline.replay` on a thread of its own: reading, HCI parsing, frame decoding and proximity estimation
/// there, and the caller's work on each sighting (its JSON, the trigger engine) on the caller's thread, so a capture
/// replays on two cores as `geotrigger replay` does with traces (`TracePipeline`). Sightings come in batches, in
/// capture order; the queue is bounded, so a slow consumer slows the reader instead of memory growing.
public final class BTSnoopReplayThread: Sendable {
    public enum Item: Sendable {
        case sightings([BeaconSighting])
        /// The capture ended, or broke off with `error` (what came before it was handed out): the statistics.
        case end(BeaconScanPipeline.Statistics, error: (any Error)?)
    }

    /// The reader moves to the thread and is used there only.
    private final class Handover: @unchecked Sendable {
        let reader: BTSnoopReader
        init(_ reader: BTSnoopReader) { self.reader = reader }
    }

    private let queue = Mutex<[Item]>([])
    private let items = DispatchSemaphore(value: 0)
    private let slots: DispatchSemaphore
    private let handover: Handover
    private let pipeline: BeaconScanPipeline
    private let controllerIndex: UInt16?
    private let observerForAdapter: (@Sendable (String) -> String)?
    private let batchSize: Int

    /// The arguments are `BeaconScanPipeline.replay`'s; `reader` must not be used by the caller any more.
    public init(reader: BTSnoopReader, pipeline: BeaconScanPipeline, controllerIndex: UInt16? = nil,
                observerForAdapter: (@Sendable (String) -> String)? = nil, batchSize: Int = 4096, depth: Int = 8) {
        handover = Handover(reader)
        self.pipeline = pipeline
        self.controllerIndex = controllerIndex
        self.observerForAdapter = observerForAdapter
        self.batchSize = batchSize
        slots = DispatchSemaphore(value: depth)
    }

    public func start() {
        let thread = Thread { [self] in produce() }
        thread.name = "geotrigger-btsnoop"
        thread.start()
    }

    /// The next item, waiting for it. After `.end` there are no more.
    public func next() -> Item {
        while true {
            let item: Item? = queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let item {
                slots.signal()
                return item
            }
            items.wait()
        }
    }

    private func push(_ item: Item) {
        slots.wait()
        queue.withLock { $0.append(item) }
        items.signal()
    }

    private func produce() {
        var pipeline = self.pipeline
        var batch: [BeaconSighting] = []
        batch.reserveCapacity(batchSize)
        var failure: (any Error)?
        do {
            try pipeline.replay(handover.reader, controllerIndex: controllerIndex, observerForAdapter: observerForAdapter) { s in
                batch.append(s)
                if batch.count >= batchSize {
                    push(.sightings(batch))
                    batch = []
                    batch.reserveCapacity(batchSize)
                }
            }
        } catch {
            failure = error
        }
        if !batch.isEmpty { push(.sightings(batch)) }
        push(.end(pipeline.statistics, error: failure))
    }
}
