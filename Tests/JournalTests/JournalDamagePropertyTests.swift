import Foundation
import Journal
import Logging
import TestSupport
import Testing

/// Issue 43's damage property: a random journal (segments rotated, checkpoints written, old segments dropped as the
/// host does), then one random piece of damage to its folder (a bit flipped anywhere, a file truncated anywhere,
/// deleted, or renamed). Opening it then either refuses with a file (and offset), or gives back every acknowledged
/// record exactly; with `recover` it always opens, gives back every acknowledged record outside the ranges it
/// reports (each at its own position, with its own bytes), and takes new records after every acknowledged one. A
/// second start accepts what the recovery recorded.
///
/// `GEOTRIGGER_DAMAGE_CASES` sets the number of cases (default 250); the first seed is `GEOTRIGGER_DAMAGE_SEED`.
@Suite struct JournalDamagePropertyTests {
    /// Quiet: every case logs its recovery at `critical`, hundreds of lines that say nothing the checks do not.
    let logger = Logger(label: "journal-damage-property", factory: { _ in SwiftLogNoOpLogHandler() })

    static var cases: Int { ProcessInfo.processInfo.environment["GEOTRIGGER_DAMAGE_CASES"].flatMap(Int.init) ?? 250 }
    static var firstSeed: UInt64 { ProcessInfo.processInfo.environment["GEOTRIGGER_DAMAGE_SEED"].flatMap(UInt64.init) ?? 1 }

    enum Damage: CaseIterable { case flip, truncate, delete, rename }

    struct Outcome { var refused = 0, opened = 0, recoveredWithLoss = 0 }

    @Test func everyAcknowledgedRecordIsReadBackOrReportedSkipped() async throws {
        var outcome = Outcome()
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.cases)) {
            try await check(seed: seed, &outcome)
        }
        // The damage really reached records: some starts were refused, some recoveries gave records up.
        #expect(outcome.refused > Self.cases / 4)
        #expect(outcome.recoveredWithLoss > 0)
        print("journal damage property: \(Self.cases) cases, \(outcome.refused) refused, \(outcome.opened) opened intact, \(outcome.recoveredWithLoss) recovered with reported ranges")
    }

    func check(seed: UInt64, _ outcome: inout Outcome) async throws {
        var rng = SplitMix(seed: seed)
        let directory = try TestFolders.make("journal-damage-\(seed)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let segmentBytes = rng.int(300, 2_000)
        let preallocate = rng.chance(0.5)
        func configuration(recover: Bool) -> Journal.Configuration {
            .init(segmentBytes: segmentBytes, recover: recover, preallocate: preallocate, preallocateAfter: 0)
        }
        // The run: groups of records acknowledged (durable), checkpoint files named by positions reached, and
        // segments dropped before the older checkpoint, as the host does.
        var acknowledged: [[UInt8]] = []
        var checkpoints: [UInt64] = []
        let journal = try Journal(directory: directory, configuration: configuration(recover: false), logger: logger)
        let files = CheckpointFiles(directory: directory)
        for _ in 0..<rng.int(1, 12) {
            let group = (0..<rng.int(1, 5)).map { _ in
                JournalRecord(kind: UInt8(rng.int(1, 9)), payload: (0..<rng.int(1, 120)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            }
            let range = try journal.write(group)
            try await journal.waitDurable(through: range.upperBound)
            acknowledged += group.map { [$0.kind] + $0.payload }
            if rng.chance(0.3) {
                let at = UInt64(acknowledged.count)
                try files.write(Array("state".utf8), position: at)
                checkpoints.insert(at, at: 0)
                if checkpoints.count >= 2 { try journal.dropSegments(before: checkpoints[1]) }
            }
        }
        let first = journal.firstPosition
        let end = UInt64(acknowledged.count)
        journal.close()
        let damage = try damageOne(directory, &rng)
        let context = "seed \(seed): \(damage)"

        // Without recover: refused with a file, or every acknowledged record as it was.
        var opened: Journal?
        do {
            opened = try Journal(directory: directory, configuration: configuration(recover: false), logger: logger)
        } catch {
            let file: String? = switch error {
            case .damaged(let path, _, _), .io(_, let path, _): path
            case .poisoned, .closed: nil
            }
            #expect(file?.hasPrefix(directory) == true, "\(context): \(error)")
        }
        if let journal = opened {
            outcome.opened += 1
            #expect(journal.nextPosition == end, "\(context)")
            journal.close()
            let read = try JournalTests.readAll(directory, from: first)
            #expect(read.map(\.0) == Array(first..<end), "\(context)")
            #expect(read.map { [$0.1.kind] + $0.1.payload } == Array(acknowledged[Int(first)...]), "\(context)")
            return
        }
        outcome.refused += 1

        // With recover: it opens, reports ranges, and every acknowledged record outside them is back in place.
        let recovered = try Journal(directory: directory, configuration: configuration(recover: true), logger: logger)
        let skipped = recovered.skippedRanges
        #expect(recovered.nextPosition >= end, "\(context)")
        #expect(checkpoints.allSatisfy { recovered.nextPosition >= $0 }, "\(context)")
        if !skipped.isEmpty { outcome.recoveredWithLoss += 1 }
        let next = recovered.nextPosition
        let appended = try await recovered.append([JournalRecord(kind: 7, payload: [1, 2, 3])])
        #expect(appended.lowerBound == next, "\(context)")
        recovered.close()
        let expected = (first..<end).filter { p in !skipped.contains { $0.records.contains(p) } }
        let read = try JournalTests.readAll(directory, from: first)
        #expect(read.map(\.0) == expected + [next], "\(context): skipped \(skipped)")
        for (position, record) in read where position < end {
            #expect([record.kind] + record.payload == acknowledged[Int(position)], "\(context): record \(position)")
        }
        // The recovery is durable: a plain start accepts its gaps.
        let again = try Journal(directory: directory, configuration: configuration(recover: false), logger: logger)
        #expect(again.nextPosition == next + 1 && again.openReport.newlySkipped.isEmpty, "\(context)")
        again.close()
    }

    /// Damages one file of the folder; returns what it did.
    func damageOne(_ directory: String, _ rng: inout SplitMix) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let name = rng.pick(names)
        let path = directory + "/" + name
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var kind = rng.pick(Damage.allCases)
        if size == 0, kind == .flip || kind == .truncate { kind = .delete }
        switch kind {
        case .flip:
            // Mostly within the bytes written: a segment's zeros past its end hold nothing.
            let offset = rng.chance(0.8) ? rng.int(0, min(size, 4096) - 1) : rng.int(0, size - 1)
            var data = try Data(contentsOf: URL(fileURLWithPath: path))
            data[offset] ^= UInt8(1 << rng.int(0, 7))
            try data.write(to: URL(fileURLWithPath: path))
            return "bit flipped in \(name) at byte \(offset)"
        case .truncate:
            let offset = rng.int(0, size - 1)
            #expect(truncate(path, off_t(offset)) == 0)
            return "\(name) truncated to \(offset) bytes"
        case .delete:
            #expect(unlink(path) == 0)
            return "\(name) deleted"
        case .rename:
            let digits = name.prefix { $0.isNumber }
            guard let n = UInt64(digits), !digits.isEmpty else {
                #expect(rename(path, path + ".old") == 0)
                return "\(name) renamed away"
            }
            let other = String(repeating: "0", count: max(0, digits.count - String(n + 3).count)) + String(n + 3) + name.dropFirst(digits.count)
            #expect(rename(path, directory + "/" + other) == 0)
            return "\(name) renamed to \(other)"
        }
    }
}
