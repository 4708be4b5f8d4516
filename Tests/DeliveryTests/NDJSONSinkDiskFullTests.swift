import Foundation
import Storage
import Testing
import TestSupport
import TriggerEngine

@testable import Sinks

/// A file sink on a disk that fills up mid-write: the retry must not leave a torn line, lose or repeat an entry.
/// A real small filesystem: a tmpfs this test mounts (root only) and then grows, as an operator freeing space would.
@Suite(.enabled(if: SmallDisk.canMount, "mounts a small tmpfs to fill it: needs root (skipped otherwise)"))
struct NDJSONSinkDiskFullTests {
    /// Delivers `batches` batches of 7 entries (700 bytes each), growing the disk after the first failure and
    /// retrying the failed batch, as the dispatcher would. Returns how many deliveries failed.
    static func deliverThroughDiskFull(_ sink: NDJSONSink, disk: SmallDisk, batches: Int) async throws -> Int {
        var failures = 0
        for b in 0..<batches {
            let batch = (1...7).map { NDJSONSinkTests.entry(b * 7 + $0) }
            while true {
                do {
                    try await sink.deliver(batch)
                    break
                } catch {
                    guard case .retryable(let reason, _) = error else { Issue.record("not retryable: \(error)"); return failures }
                    #expect(reason.contains("No space left"), "\(reason)")
                    failures += 1
                    guard failures < 5 else { Issue.record("still failing after growing the disk: \(reason)"); return failures }
                    try disk.grow(to: "1m")
                }
            }
        }
        return failures
    }

    @Test func retryAfterDiskFullLeavesNoTornLine() async throws {
        // 16 KiB: the 24th batch of 700 bytes crosses the end, so its write stops mid-line.
        let disk = try SmallDisk(size: "16k")
        defer { disk.unmount() }
        let path = disk.folder + "/out.ndjson"
        let sink = try NDJSONSink(path: path, name: "n")
        let failures = try await Self.deliverThroughDiskFull(sink, disk: disk, batches: 30)
        #expect(failures == 1)
        // Every entry exactly once, in order, each line whole.
        #expect(NDJSONSinkTests.lines(path) == (1...210).map { NDJSONSinkTests.entry($0).json })
    }

    @Test func rotationThroughDiskFullKeepsEveryLineOnce() async throws {
        let disk = try SmallDisk(size: "16k")
        defer { disk.unmount() }
        let path = disk.folder + "/out.ndjson"
        let sink = try NDJSONSink(path: path, name: "n", options: NDJSONOptions(rotateBytes: 2100, keep: 100))
        let failures = try await Self.deliverThroughDiskFull(sink, disk: disk, batches: 30)
        #expect(failures == 1)
        // Oldest file first: PATH.N … PATH.1, PATH.
        let rotated = (1...100).map { "\(path).\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }.reversed()
        let all = (rotated + [path]).flatMap(NDJSONSinkTests.lines)
        #expect(all == (1...210).map { NDJSONSinkTests.entry($0).json })
        for file in rotated + [path] {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? -1
            #expect(size <= 2100, "\(file) holds \(size) bytes")
        }
    }
}
