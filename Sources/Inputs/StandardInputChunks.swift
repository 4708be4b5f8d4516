import Dispatch
import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Standard input as a sequence of byte chunks, read by a thread of its own: a blocking read(2) works on pipes,
/// files and terminals alike (an event loop cannot watch a regular file), and it never holds one of the few
/// threads of Swift's cooperative pool. At most `ahead` chunks wait unread, so a fast producer is held back.
struct StandardInputChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    private let stream: AsyncThrowingStream<ByteBuffer, any Error>
    private let credits: DispatchSemaphore

    init(descriptor: Int32 = STDIN_FILENO, chunkSize: Int = 64 << 10, ahead: Int = 4) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ByteBuffer.self)
        // Starts at 0 and is raised to `ahead`: libdispatch traps when a semaphore is freed below its initial value.
        let credits = DispatchSemaphore(value: 0)
        for _ in 0..<ahead { credits.signal() }
        self.stream = stream
        self.credits = credits
        let thread = Thread {
            var bytes = [UInt8](repeating: 0, count: chunkSize)
            while true {
                credits.wait()
                let n = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, chunkSize) }
                if n > 0 {
                    if case .terminated = continuation.yield(ByteBuffer(bytes: bytes[..<n])) { return }
                } else if n == 0 {
                    continuation.finish()
                    return
                } else if errno == EINTR {
                    credits.signal()
                } else {
                    continuation.finish(throwing: StandardInputError(errno: errno))
                    return
                }
            }
        }
        thread.name = "geotrigger-stdin"
        thread.start()
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<ByteBuffer, any Error>.AsyncIterator
        let credits: DispatchSemaphore

        mutating func next() async throws -> ByteBuffer? {
            let chunk = try await base.next()
            // The chunk is taken: the reader may fetch one more.
            if chunk != nil { credits.signal() }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), credits: credits) }
}

struct StandardInputError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { "reading standard input failed: errno \(errno)" }
}
