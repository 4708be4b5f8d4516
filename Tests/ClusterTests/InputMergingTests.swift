@testable import Cluster
import Dispatch
import EngineLog
import Synchronization
import Testing
import TestSupport
import TriggerEngine

/// The gateway's group commit: parts of concurrent batches for one partition joined into one input message that
/// evaluates as the parts did, one after the other.
struct InputMergingTests {
    static func fixes(_ device: String, _ n: Int, from t: Double) -> [LocationFix] {
        (0..<n).map { LocationFix(device: device, timestamp: Timestamp(seconds: t + Double($0)), latitude: 52 + Double($0) / 1000, longitude: 13) }
    }

    static func encoded(_ input: ClusterInput) -> [UInt8] {
        var w = ByteWriter(capacity: 256)
        return input.encoded(using: &w)
    }

    @Test func runsOfOneKindAndStampJoinAndNothingElseDoes() throws {
        let a = Self.fixes("a", 3, from: 100), b = Self.fixes("b", 2, from: 200), d = Self.fixes("d", 1, from: 300)
        let f = Self.fixes("f", 4, from: 400), g = Self.fixes("g", 1, from: 500)
        let sighting = BeaconSighting(device: "s", timestamp: Timestamp(seconds: 150), identity: .iBeacon(uuid: UUID128(high: 1, low: 2), major: 3, minor: 4), rssi: -60, txPower: nil)
        let inputs = [
            ClusterInput(requestsSequence: 3, input: .fixes(a)), ClusterInput(requestsSequence: 3, input: .fixes(b)),
            ClusterInput(requestsSequence: 3, input: .sightings([sighting])), ClusterInput(requestsSequence: 4, input: .fixes(d)),
            ClusterInput(requestsSequence: 4, input: .clock(Timestamp(seconds: 450))),
            ClusterInput(requestsSequence: 4, input: .fixes(f)), ClusterInput(requestsSequence: 4, input: .fixes(g)),
        ]
        let merged = ClusterInput.merged(inputs.map(Self.encoded), limit: 1 << 20)
        let ranges: [Range<Int>] = merged.map(\.inputs)
        let expectedRanges: [Range<Int>] = [0..<2, 2..<3, 3..<4, 4..<5, 5..<7]
        #expect(ranges == expectedRanges)
        let decoded: [ClusterInput] = try merged.map { try ClusterInput(decoding: $0.data, sequence: 1) }
        let ab = ClusterInput(requestsSequence: 3, input: .fixes(a + b)), fg = ClusterInput(requestsSequence: 4, input: .fixes(f + g))
        let expected: [ClusterInput] = [ab, inputs[2], inputs[3], inputs[4], fg]
        #expect(decoded == expected)
    }

    @Test func aJoinedMessageStaysWithinTheLimitAndKeepsTheOrder() throws {
        var rng = SplitMix(seed: 7)
        let parts = (0..<200).map { k in Self.fixes("v\(k)", Int(rng.next() % 20) + 1, from: Double(k) * 100) }
        let encoded = parts.map { Self.encoded(ClusterInput(requestsSequence: 9, input: .fixes($0))) }
        let limit = 4096
        let merged = ClusterInput.merged(encoded, limit: limit)
        let count = merged.count
        #expect(count > 1)
        #expect(count < parts.count)
        var all: [LocationFix] = []
        var next = 0
        for m in merged {
            #expect(m.inputs.lowerBound == next)
            next = m.inputs.upperBound
            #expect(m.data.count <= limit || m.inputs.count == 1)
            guard case .fixes(let fixes) = try ClusterInput(decoding: m.data, sequence: 1).input else { Issue.record("not fixes"); continue }
            let expected: [LocationFix] = Array(parts[m.inputs].joined())
            #expect(fixes == expected)
            all += fixes
        }
        let everything: [LocationFix] = Array(parts.joined())
        #expect(next == parts.count)
        #expect(all == everything)
    }

    @Test func partsWaitingBehindARoundGoOutTogetherInTheNext() async throws {
        let rounds = Mutex<[[(partition: Int, data: [UInt8])]]>([])
        let release = DispatchSemaphore(value: 0)
        let appender = CoalescingAppender(limit: 1 << 20) { messages in
            let count = rounds.withLock { r in r.append(messages); return r.count }
            // The first round is held until the others have queued behind it; the third fails.
            if count == 1 { release.wait() }
            return count == 3 ? .unavailable("refused") : nil
        }
        let one = Self.encoded(ClusterInput(requestsSequence: 1, input: .fixes(Self.fixes("a", 1, from: 0))))
        let first = Task { await appender.append(partition: 0, data: one) }
        #expect(await eventually { rounds.withLock { $0.count } == 1 })
        // Five parts for partition 0 and two for partition 1 wait behind it.
        let queued = (1...5).map { k in
            Task { await appender.append(partition: 0, data: Self.encoded(ClusterInput(requestsSequence: 1, input: .fixes(Self.fixes("b\(k)", k, from: 0))))) }
        } + (1...2).map { k in
            Task { await appender.append(partition: 1, data: Self.encoded(ClusterInput(requestsSequence: 1, input: .fixes(Self.fixes("c\(k)", 1, from: 0))))) }
        }
        #expect(await eventually { appender.waiting == 7 })
        release.signal()
        #expect(await first.value == nil)
        for t in queued { #expect(await t.value == nil) }
        let written = rounds.withLock { $0 }
        #expect(written.count == 2)
        let second = written[1]
        #expect(second.map(\.partition).sorted() == [0, 1], "one message per partition")
        for (partition, data) in second {
            guard case .fixes(let joined) = try ClusterInput(decoding: data, sequence: 2).input else { Issue.record("not fixes"); continue }
            #expect(joined.count == (partition == 0 ? 15 : 2), "partition 0: 1 + 2 + 3 + 4 + 5 fixes; partition 1: 1 + 1")
        }
        // A failed round answers every input it carried with the failure.
        let failed = await appender.append(partition: 1, data: one)
        #expect(failed != nil)
    }
}
