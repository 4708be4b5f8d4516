import Dispatch
import Foundation
import Synchronization
import TriggerEngine

/// Decodes trace files on a thread of its own and hands out fixes in batches, so parsing (one core) overlaps with
/// evaluation and output (the other). Order is preserved: files in the order given, records in file order, and each
/// error at its position among the fixes. The queue is bounded, so a slow consumer slows the reader instead of
/// letting memory grow.
public final class TracePipeline: Sendable {
    public struct Batch: Sendable {
        public var path: String
        /// The file's size when known (progress), and bytes read so far.
        public var size: Int?
        public var bytesRead: Int
        public var fixes: [LocationFix]
        /// Errors with the number of this batch's fixes that came before each.
        public var errors: [(position: Int, error: IngestError)]
        /// The file could not be opened or read to its end: the reason, with the path. The pipeline goes on with the
        /// next file (one unreadable file does not end a replay); a consumer that must stop calls `cancel`.
        public var failure: String?
        /// The decoder's warnings about the whole file, on the file's last batch.
        public var warnings: [IngestWarning] = []
    }

    public typealias Opener = @Sendable (String) throws -> any TraceSource

    private let paths: [String]
    private let open: Opener
    private let batchSize: Int
    private let queue = Mutex<[Batch]>([])
    private let items = DispatchSemaphore(value: 0)
    private let slots: DispatchSemaphore
    private let cancelled = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    public init(paths: [String], batchSize: Int = 4096, depth: Int = 8, open: @escaping Opener) {
        self.paths = paths
        self.open = open
        self.batchSize = batchSize
        self.slots = DispatchSemaphore(value: depth)
    }

    /// Starts the decoding thread.
    public func start() {
        let thread = Thread { [self] in produce() }
        thread.name = "geotrigger-decode"
        thread.start()
    }

    /// Asks the decoder to stop after its current batch (e.g. `--strict` found an error).
    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
        // Free the producer if it waits for room.
        slots.signal()
    }

    /// The next batch, waiting for it; nil once every file is done (or after `cancel`).
    public func next() -> Batch? {
        while true {
            if let b = take() { return b }
            if finished.load(ordering: .acquiring) { return take() }
            items.wait()
        }
    }

    private func take() -> Batch? {
        let b: Batch? = queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        if b != nil { slots.signal() }
        return b
    }

    private func push(_ b: Batch) {
        slots.wait()
        queue.withLock { $0.append(b) }
        items.signal()
    }

    private func produce() {
        defer {
            finished.store(true, ordering: .releasing)
            items.signal()
        }
        for path in paths {
            if cancelled.load(ordering: .relaxed) { return }
            var reader: any TraceSource
            do {
                reader = try open(path)
            } catch {
                push(Batch(path: path, size: nil, bytesRead: 0, fixes: [], errors: [], failure: "\(error)"))
                continue
            }
            var batch = Batch(path: path, size: reader.size, bytesRead: 0, fixes: [], errors: [], failure: nil)
            batch.fixes.reserveCapacity(batchSize)
            do {
                try reader.readAll(
                    onRecord: { fix in
                        batch.fixes.append(fix)
                        if batch.fixes.count >= batchSize {
                            push(batch)
                            batch.fixes = []
                            batch.fixes.reserveCapacity(batchSize)
                            batch.errors = []
                        }
                    },
                    onError: { e in batch.errors.append((batch.fixes.count, e)) },
                    shouldContinue: { !cancelled.load(ordering: .relaxed) },
                    progress: { batch.bytesRead = $0 })
            } catch {
                batch.failure = "\(error)"
            }
            batch.warnings = reader.warnings
            push(batch)
        }
    }
}
