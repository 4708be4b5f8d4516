import NIOCore
import NIOPosix
import Synchronization

/// Event loop groups shared by every server in the process, one per thread count, living as long as the process
/// (as swift-nio's own singleton does): a server started and stopped many times (the tests start hundreds) must not
/// leave threads behind, and a group shut down under a server still running would fail its connections.
enum SharedEventLoops {
    private static let groups = Mutex<[Int: MultiThreadedEventLoopGroup]>([:])

    static func group(threads: Int) -> MultiThreadedEventLoopGroup {
        if threads == System.coreCount { return .singleton }
        return groups.withLock { g in
            if let group = g[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            g[threads] = group
            return group
        }
    }
}
