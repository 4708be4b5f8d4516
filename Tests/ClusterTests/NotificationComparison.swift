import JSON
import Testing

/// A deployment's notifications (one JSON object per line, from its output stream or topic) against a
/// single-instance replay of the same input, by deliveryId: none twice, none lost, none extra, the same bytes.
struct NotificationComparison {
    let ids: [String]
    let lost: Set<String>
    let extra: Set<String>
    /// deliveryIds the deployment published more than once.
    let repeated: Set<String>

    init(cluster clusterLines: [String], single: [String]) throws {
        ids = try clusterLines.map { try Self.deliveryId($0) }
        let counts = Dictionary(ids.map { ($0, 1) }, uniquingKeysWith: +)
        repeated = Set(counts.filter { $0.value > 1 }.keys)
        #expect(repeated.count == 0, "delivered more than once: \(repeated.sorted().prefix(5))")
        let singleByID = Dictionary(try single.map { (try Self.deliveryId($0), $0) }, uniquingKeysWith: { a, _ in a })
        let clusterByID = Dictionary(zip(ids, clusterLines), uniquingKeysWith: { a, _ in a })
        lost = Set(singleByID.keys).subtracting(clusterByID.keys)
        extra = Set(clusterByID.keys).subtracting(singleByID.keys)
        #expect(lost.count == 0, "lost, e.g. \(lost.sorted().prefix(5))")
        #expect(extra.count == 0, "extra, e.g. \(extra.sorted().prefix(5))")
        let differing = singleByID.filter { id, line in clusterByID[id].map { $0 != line } ?? false }
        #expect(differing.count == 0, "differ, e.g. \(differing.first.map { "\($0.value)\n vs \(clusterByID[$0.key]!)" } ?? "")")
    }

    static func deliveryId(_ line: String) throws -> String {
        guard let id = try JSONParser.parse(line)["deliveryId"]?.stringValue else { throw ClusterTestFailure(description: "no deliveryId in \(line)") }
        return id
    }
}
