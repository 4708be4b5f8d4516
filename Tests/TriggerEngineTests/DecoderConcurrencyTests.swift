import JSON
import Testing
import TriggerEngine

/// Request decoding is usable from any thread: GEOS contexts are borrowed per call, never shared.
@Suite struct DecoderConcurrencyTests {
    static let polygon = """
        {"identifier":"zone","content":{"title":"t"},"trigger":{"region":{"type":"polygon","id":"z","geometry":
         {"type":"Polygon","coordinates":[[[13.40,52.51],[13.42,52.51],[13.42,52.53],[13.40,52.53],[13.40,52.51]]]}}}}
        """
    static let bowtie = """
        {"identifier":"bad","content":{"title":"t"},"trigger":{"region":{"type":"polygon","id":"b","geometry":
         {"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}}}
        """

    @Test func decodesPolygonsFromManyTasksAtOnce() async throws {
        let decoder = RequestDecoder()
        let good = try JSONParser.parse(Self.polygon), bad = try JSONParser.parse(Self.bowtie)
        let expected = try decoder.decodeRequest(good)
        let results = await withTaskGroup(of: (Bool, String?).self) { group in
            for _ in 0..<16 {
                group.addTask {
                    var same = true
                    var refusal: String?
                    for _ in 0..<200 {
                        same = same && (try? decoder.decodeRequest(good)) == expected
                        do throws(RequestError) { _ = try decoder.decodeRequest(bad) } catch { refusal = error.reason }
                    }
                    return (same, refusal)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.0 })
        // GEOS's own reason, from whichever context the call borrowed.
        #expect(results.allSatisfy { $0.1?.contains("Self-intersection") == true }, "\(results.map { $0.1 })")
    }
}
