import SystemErrors
import Dispatch
import Logging
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
/// The thread is named `geotrigger-eng` (as `top -H` shows it) and asks for nice -10: it is the one serial stage
/// every batch passes, and at equal priority the scheduler preempted it mid-batch for the pool threads decoding the
/// next requests (a batch's evaluation took 1.32 ms of wall time for 1.07 ms of the thread's CPU). Alternating
/// builds on `Tools/bench/http_ingest.py`: 0.47/0.53/0.53 of the replay rate against 0.43/0.47/0.48, evaluation
/// 0.66-0.78 against 0.87-0.97 ms per batch. Raising a priority needs CAP_SYS_NICE or `LimitNICE=`
/// (docs/service.md); without either the thread runs at the process's priority, which the log says once.
///
/// The journal's `RecordWriter` runs on one too (`geotrigger-jrn`), for the same reason.
///
/// The thread ends once `stop()` was called and its queue is empty; its owner calls it when it is released.
final class EngineThread: SerialExecutor {
    /// The nice value the thread asks for.
    static let nice: Int32 = -10

    /// An actor job, or a closure that runs on the thread outside any job (`run(_:)`).
    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private struct Queue {
        var jobs: [Work] = []
        /// The thread found nothing to do and waits on `wake`: the next job or `stop` signals it.
        var sleeping = false
        var stopping = false
    }

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    private let logger: Logger?
    /// The thread's `pthread_self()`, once it runs: `checkIsolated` compares with it.
    private let threadID = Atomic<UInt>(0)

    /// The thread's name, as `top -H` shows it (15 bytes at most).
    private let name: String

    init(name: String = "geotrigger-eng", logger: Logger? = nil) {
        self.name = name
        self.logger = logger
        // The new thread holds the executor until it ends: jobs may still arrive after the host's last reference
        // to it is gone (a task finishing on the actor), and `stop()` lets it end once they ran.
        let executor = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            let executor = Unmanaged<EngineThread>.fromOpaque(raw!).takeRetainedValue()
            executor.threadID.store(UInt(pthread_self()), ordering: .releasing)
            executor.prepareThread()
            executor.run()
            return nil
        }, executor.toOpaque())
        guard started == 0 else {
            executor.release()
            fatalError("pthread_create failed for the engine's thread: \(SystemError.text(started))")
        }
        pthread_detach(thread)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        add(.job(UnownedJob(job)))
    }

    /// Runs `body` on the thread, in order with the actor's jobs; there, `assumeIsolated` holds (`checkIsolated`).
    /// For a caller that waits on a continuation the closure resumes later from another thread: awaiting an actor
    /// method costs a hop back to the caller's executor when it returns, before the caller can even start waiting.
    func run(_ body: @escaping @Sendable () -> Void) {
        add(.closure(body))
    }

    /// Only the thread itself runs the actor's jobs and `run`'s closures: a closure is isolated to the actor.
    func checkIsolated() {
        precondition(UInt(pthread_self()) == threadID.load(ordering: .acquiring), "not on the engine's thread")
    }

    private func add(_ work: Work) {
        let signal = queue.withLock { q in
            q.jobs.append(work)
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

    /// Names the thread and raises its priority, where permitted. Through /proc/thread-self: glibc's
    /// `gettid` and `pthread_setname_np` are not in Swift's Glibc module.
    private func prepareThread() {
        #if os(Linux)
        let comm = open("/proc/thread-self/comm", O_WRONLY)
        if comm >= 0 {
            _ = name.withCString { write(comm, $0, strlen($0)) }
            close(comm)
        }
        var link = [UInt8](repeating: 0, count: 64)
        let n = link.withUnsafeMutableBufferPointer { readlink("/proc/thread-self", $0.baseAddress!, $0.count) }
        // "PID/task/TID": PRIO_PROCESS with a thread id sets that one thread's nice value.
        guard n > 0, let tid = String(decoding: link[..<n], as: UTF8.self).split(separator: "/").last.flatMap({ id_t($0) })
        else { return }
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, Self.nice) == 0 {
            logger?.debug("engine thread running at raised priority", metadata: ["nice": "\(Self.nice)"])
        } else {
            let reason = SystemError.text()
            logger?.notice("engine thread left at the process's priority: raising it needs CAP_SYS_NICE or LimitNICE",
                           metadata: ["nice": "\(Self.nice)", "error": "\(reason)"])
        }
        #endif
    }

    private func run() {
        var batch: [Work] = []
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
            for work in batch {
                switch work {
                case .job(let job): job.runSynchronously(on: executor)
                case .closure(let body): body()
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
