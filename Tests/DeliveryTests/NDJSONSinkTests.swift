import Foundation
import Storage
import TestSupport
import Testing
import TriggerEngine

@testable import Sinks

/// The NDJSON file sink: lines appended in order, rotation by size keeping numbered files.
@Suite struct NDJSONSinkTests {
    static func entry(_ k: Int) -> OutboxEntry {
        // 99 bytes and a newline: 100 per entry.
        let json = #"{"deliveryId":"r/d/1-\#(k)","pad":""# + String(repeating: "x", count: 99 - 32 - String(k).count) + #""}"#
        return OutboxEntry(sequence: Int64(k), deliveryId: "r/d/1-\(k)", identifier: "r", device: "d", json: json,
                           createdAt: Timestamp(microseconds: 0))
    }

    static func directory() throws -> URL {
        try TestFolders.make("delivery-tests")
    }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func appendsLinesInOrder() async throws {
        let path = try Self.directory().appendingPathComponent("out.ndjson").path
        let sink = try NDJSONSink(path: path, name: "ndjson:\(path)")
        try await sink.deliver([Self.entry(1), Self.entry(2)])
        try await sink.deliver([Self.entry(3)])
        #expect(Self.lines(path) == [1, 2, 3].map { Self.entry($0).json })
        #expect(Self.entry(10).json.utf8.count == 99)
    }

    /// Synced lines leave the page cache in whole pages (the service never reads them back); the file reads the same.
    @Test func syncedLinesLeaveThePageCache() async throws {
        let path = try Self.directory().appendingPathComponent("out.ndjson").path
        let sink = try NDJSONSink(path: path, name: "ndjson:\(path)")
        for k in stride(from: 0, to: 1_000, by: 50) { try await sink.deliver((k..<k + 50).map(Self.entry)) }
        guard let cache = PageCache.residentWholePages(path, before: 100_000) else {
            print("skipped: \(path) is on a tmpfs (its pages live in the cache)")
            return
        }
        #expect(cache.pages == 24)
        #expect(cache.resident == 0, "\(cache.resident) of \(cache.pages) synced pages still cached")
        #expect(Self.lines(path) == (0..<1_000).map { Self.entry($0).json })
    }

    @Test func rotatesBySizeKeepingNumberedFiles() async throws {
        let path = try Self.directory().appendingPathComponent("out.ndjson").path
        let sink = try NDJSONSink(path: path, name: "ndjson:\(path)", options: NDJSONOptions(rotateBytes: 350, keep: 3))
        for k in 1...20 { try await sink.deliver([Self.entry(k)]) }
        // 3 lines (300 bytes) fit; the 4th would pass 350: files of 3, newest last. 20 = 6·3 + 2.
        #expect(Self.lines(path) == [19, 20].map { Self.entry($0).json })
        #expect(Self.lines(path + ".1") == [16, 17, 18].map { Self.entry($0).json })
        #expect(Self.lines(path + ".2") == [13, 14, 15].map { Self.entry($0).json })
        #expect(Self.lines(path + ".3") == [10, 11, 12].map { Self.entry($0).json })
        #expect(!FileManager.default.fileExists(atPath: path + ".4"))
        // A batch larger than the bound goes whole into a fresh file.
        try await sink.deliver((21...25).map(Self.entry))
        #expect(Self.lines(path) == (21...25).map { Self.entry($0).json })
        #expect(Self.lines(path + ".1") == [19, 20].map { Self.entry($0).json })
    }

    @Test func reopenedSinkContinuesTheFileAndItsSize() async throws {
        let path = try Self.directory().appendingPathComponent("out.ndjson").path
        let options = NDJSONOptions(rotateBytes: 250, keep: 2)
        try await NDJSONSink(path: path, name: "n", options: options).deliver([Self.entry(1), Self.entry(2)])
        // A restart: the new sink knows the file holds 200 bytes, so the next line rotates it.
        try await NDJSONSink(path: path, name: "n", options: options).deliver([Self.entry(3)])
        #expect(Self.lines(path + ".1") == [1, 2].map { Self.entry($0).json })
        #expect(Self.lines(path) == [Self.entry(3).json])
    }

    @Test func openingCutsAFragmentACrashLeftBehind() async throws {
        let path = try Self.directory().appendingPathComponent("out.ndjson").path
        // A crash mid-write: one whole line, then part of the next (never acknowledged, so delivered again).
        try Data((Self.entry(1).json + "\n" + Self.entry(2).json.prefix(40)).utf8).write(to: URL(fileURLWithPath: path))
        try await NDJSONSink(path: path, name: "n").deliver([Self.entry(2), Self.entry(3)])
        #expect(Self.lines(path) == [1, 2, 3].map { Self.entry($0).json })
    }

    @Test func unwritablePathIsRetryable() throws {
        #expect {
            try NDJSONSink(path: "/nonexistent-dir/out.ndjson", name: "n")
        } throws: { error in
            guard let failure = error as? DeliveryFailure, case .retryable(let reason, _) = failure else { return false }
            return reason.contains("/nonexistent-dir/out.ndjson")
        }
    }
}
