import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The host actor's executor: a thread of its own that runs the actor's jobs in order, instead of whichever
/// thread of Swift's shared pool is free.
///
/// Why: the pool has one thread per core, and on it a batch's evaluation waited behind request decoding and the
/// handlers' other work. Measured on `Tools/bench/http_ingest.py` (2 cores), alternating builds: 1,038k-1,089k
/// against 920k-1,070k fixes/s, and each batch's wait from evaluation to durable acknowledgement 1.03-1.17 ms
/// against 1.43-1.62 ms. Hand-written rather than a NIO event loop: that would cost three descriptors per host
/// (epoll, eventfd, timerfd) and a closure per job, for a queue and a semaphore.
///
/// The thread ends once `stop()` was called and its queue is empty; the host calls it when it is released.
final class EngineThread: SerialExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        /// The thread found nothing to do and waits on `wake`: the next job or `stop` signals it.
        var sleeping = false
        var stopping = false
    }

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    init() {
        // The new thread holds the executor until it ends: jobs may still arrive after the host's last reference
        // to it is gone (a task finishing on the actor), and `stop()` lets it end once they ran.
        let executor = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            let executor = Unmanaged<EngineThread>.fromOpaque(raw!).takeRetainedValue()
            executor.run()
            return nil
        }, executor.toOpaque())
        guard started == 0 else {
            executor.release()
            fatalError("pthread_create failed for the engine's thread: \(String(cString: strerror(started)))")
        }
        pthread_detach(thread)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let signal = queue.withLock { q in
            q.jobs.append(job)
            defer { q.sleeping = false }
            return q.sleeping
        }
        if signal { wake.signal() }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread end once its queue is empty.
    func stop() {
        let signal = queue.withLock { q in
            q.stopping = true
            defer { q.sleeping = false }
            return q.sleeping
        }
        if signal { wake.signal() }
    }

    private func run() {
        var batch: [UnownedJob] = []
        batch.reserveCapacity(64)
        let executor = asUnownedSerialExecutor()
        while true {
            let stop = queue.withLock { q -> Bool in
                if q.jobs.isEmpty {
                    if q.stopping { return true }
                    q.sleeping = true
                } else {
                    // The jobs queued so far run without the lock; the emptied array keeps its storage.
                    swap(&batch, &q.jobs)
                }
                return false
            }
            if stop { return }
            if batch.isEmpty {
                wake.wait()
                continue
            }
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
