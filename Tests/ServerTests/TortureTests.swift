import JSON
import Foundation
import HummingbirdTesting
import Testing
import TestSupport

/// kill -9 over and over while a stream of fixes is sent: each time the server restarts on the same database and
/// sink file, and the client resends from its first unanswered batch. The notifications, deduplicated by
/// deliveryId, are exactly an uninterrupted run's, in order; a notification is repeated only as the same line,
/// byte for byte (its deliveryId is the scheduler's idempotency key). Bounded by work, not by time: at least 15
/// kills, at most 60 lives. Its duration is printed, not checked: a one-minute bound failed a correct run (64 s, 15
/// kills, in a clean-clone CI run on a slower machine, 2026-11-28).
@Suite(.serialized) struct TortureTests {
    static let minimumKills = 15
    static let devices = (0..<8).map { "dev-\($0)" }
    /// 300 batches; every device moves in or out of the circle in most of them, so most fixes fire.
    static let batches: [String] = (0..<300).map { b in
        devices.enumerated().map { k, d in fixLine(d, b * 10 + k, inside: (b + k) % 3 != 0) }.joined(separator: "\n")
    }


    static func start(_ directory: URL) async throws -> ServeProcess {
        let server = try ServeProcess(database: directory.appendingPathComponent("g.sqlite").path,
                                      sink: directory.appendingPathComponent("out.ndjson").path, directory: directory)
        try await server.waitUntilListening()
        return server
    }

    /// Sends batches from `next` until one is not answered (the server died) or all are; returns the next unanswered.
    /// A resend of a batch the dead server had made durable but not answered is answered 200, every record a
    /// duplicate or late (nothing of it is new); a 422 of the same (from before resends were acknowledged) is
    /// taken the same way.
    static func send(from next: Int, to server: ServeProcess) async -> Int {
        var next = next
        while next < batches.count {
            guard let r = try? await server.post("/v1/fixes", batches[next]) else { break }
            guard r.status == .ok || (r.status == .unprocessableContent && isResend(r)) else { break }
            next += 1
        }
        return next
    }

    static func isResend(_ r: TestClient.Response) -> Bool {
        guard let body = r.body, let o = try? JSONParser.parse(Array(body.readableBytesView)), let errors = o["errors"]?.arrayValue else { return false }
        return !errors.isEmpty && errors.allSatisfy { e in
            let reason = e["reason"]?.stringValue ?? ""
            return reason.contains("duplicate") || reason.contains("older than the newest fix")
        }
    }

    @Test func repeatedKillNineDuringAStreamLosesNothingAndRepeatsOnlyIdenticalLines() async throws {
        let began = ContinuousClock.now
        let root = try TestServer().directory
        let reference = root.appendingPathComponent("reference"), tortured = root.appendingPathComponent("tortured")
        for d in [reference, tortured] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }

        let plain = try await Self.start(reference)
        _ = try await plain.put("/v1/requests/alex", requestJSON())
        #expect(await Self.send(from: 0, to: plain) == Self.batches.count)
        await plain.stop()

        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        var next = 0, kills = 0, lives = 0
        var server = try await Self.start(tortured)
        _ = try await server.put("/v1/requests/alex", requestJSON())
        while next < Self.batches.count {
            lives += 1
            try #require(lives < 60, "seed \(seed): more than 60 restarts")
            // Kill at a random moment of this life's stream, unless enough kills happened: then let it finish.
            let delay = Duration.milliseconds(Int.random(in: 10...60, using: &random))
            let pid = server.process.processIdentifier
            let killer: Task<Bool, Never>? = kills < Self.minimumKills ? Task {
                guard (try? await Task.sleep(for: delay)) != nil else { return false }
                return kill(pid, SIGKILL) == 0
            } : nil
            next = await Self.send(from: next, to: server)
            killer?.cancel()
            if await killer?.value == true {
                server.process.waitUntilExit()
                kills += 1
                server = try await Self.start(tortured)
            }
        }
        // Let the outbox reach the sink, then stop cleanly (the shutdown flushes what is left).
        try await Task.sleep(for: .milliseconds(500))
        await server.stop()

        let expected = try CrashTests.deduplicated(reference.appendingPathComponent("out.ndjson").path)
        let got = try CrashTests.deduplicated(tortured.appendingPathComponent("out.ndjson").path)
        let elapsed = ContinuousClock.now - began
        #expect(kills >= Self.minimumKills, "seed \(seed): only \(kills) kills")
        #expect(expected.lines.count > 1000)
        #expect(got.lines == expected.lines, "seed \(seed): \(got.lines.count) distinct notifications, \(expected.lines.count) expected")
        // Every repeat is the same line, byte for byte.
        let all = try String(contentsOfFile: tortured.appendingPathComponent("out.ndjson").path, encoding: .utf8).split(separator: "\n")
        let first = Dictionary(got.lines.map { (Self.deliveryId($0), $0) }, uniquingKeysWith: { a, _ in a })
        for line in all {
            #expect(first[Self.deliveryId(String(line))] == String(line), "seed \(seed): a repeat differs: \(line)")
        }
        print("torture: seed \(seed), \(kills) kills, \(lives) lives, \(all.count) lines for \(got.lines.count) notifications (\(got.repeated.count) repeated), \(elapsed)")
    }

    static func deliveryId(_ line: String) -> String {
        guard let r = line.range(of: #""deliveryId":""#) else { return "" }
        return String(line[r.upperBound...].prefix { $0 != "\"" })
    }
}
