import Foundation
import Testing
import TestSupport

@testable import Host

/// The host actor's executor: every job on the one thread of its own, one at a time, and the thread gone once
/// the executor is stopped.
@Suite struct EngineThreadTests {
    /// An actor on an `EngineThread`, recording where and how its calls ran.
    actor Probe {
        let thread = EngineThread()
        nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
        var threads: Set<pthread_t> = []
        var calls = 0
        var running = false
        var overlapped = false

        func call() {
            if running { overlapped = true }
            running = true
            threads.insert(pthread_self())
            calls += 1
            running = false
        }

        /// A call that suspends part-way: the actor takes other calls meanwhile and resumes on its thread.
        func callAcrossASuspension() async {
            threads.insert(pthread_self())
            try? await Task.sleep(for: .microseconds(50))
            threads.insert(pthread_self())
            calls += 1
        }

        /// The kernel's id of the thread running the call (`/proc/thread-self` names it: `pid/task/tid`).
        func kernelThread() throws -> String {
            try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self").split(separator: "/").last.map(String.init) ?? ""
        }

        /// The name and nice value of the thread running the call, as the kernel has them.
        func nameAndNice() throws -> (name: String, nice: Int32) {
            let name = try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            errno = 0
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(try kernelThread()) ?? 0)
            return (name.trimmingCharacters(in: .whitespacesAndNewlines), errno == 0 ? nice : .max)
        }

        deinit { thread.stop() }
    }

    @Test func everyCallRunsOnTheOneThreadInTurn() async {
        let probe = Probe()
        let callers = await withTaskGroup(of: pthread_t.self) { group in
            for k in 0..<2_000 {
                group.addTask {
                    let caller = pthread_self()
                    if k % 10 == 0 { await probe.callAcrossASuspension() } else { await probe.call() }
                    return caller
                }
            }
            return await group.reduce(into: Set<pthread_t>()) { $0.insert($1) }
        }
        #expect(await probe.calls == 2_000)
        #expect(await probe.threads.count == 1)
        #expect(await !probe.overlapped)
        // Not a thread of Swift's shared pool, which ran the callers.
        let thread = await probe.threads.first
        #expect(thread.map { callers.contains($0) } == false)
    }

    /// Named for `top -H`, and at nice -10 where the process may raise a priority (root here; elsewhere the
    /// thread stays at the process's priority and the log says so).
    @Test func theThreadIsNamedAndRaisedWherePermitted() async throws {
        let probe = Probe()
        let (name, nice) = try await probe.nameAndNice()
        #expect(name == "geotrigger-eng")
        if geteuid() == 0 {
            #expect(nice == EngineThread.nice)
        } else {
            #expect(nice == getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
    }

    @Test func aStoppedExecutorsThreadEnds() async throws {
        var ids: [String] = []
        for _ in 0..<20 {
            let probe = Probe()
            ids.append(try await probe.kernelThread())
        }
        #expect(Set(ids).count == 20)
        // The probes are gone: their deinit stopped their threads, which end once idle. Other tests' threads come
        // and go meanwhile, so each of these is looked for by its id.
        func alive() -> [String] { ids.filter { FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") } }
        #expect(await eventually { alive().isEmpty }, "stopped executors' threads still running: \(alive())")
    }
}
