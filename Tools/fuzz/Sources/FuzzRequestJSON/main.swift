import JSON
import FuzzChecks
import FuzzDriver
import TriggerEngine

/// One decoder for the whole run, as `serve` keeps one (a Sendable value).
let decoder = RequestDecoder()

/// libFuzzer entry: bytes as a `POST /v1/requests` body: `JSONParser`, then `RequestDecoder.decodeRequests` (polygons
/// through GEOS validation), as the server's EngineHost does.
func fuzzRequestJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    guard let json = try? JSONParser.parse(input) else { return 0 }
    checkJSONRoundTrip(json)
    let first = Result { () throws(RequestError) in try decoder.decodeRequests(json) }
    // The GEOS context is reused across requests: nothing of one decode may leak into the next.
    let second = Result { () throws(RequestError) in try decoder.decodeRequests(json) }
    invariant(first == second, "requests: decoding the same JSON twice gave \(first) then \(second)")
    if case .success(let requests) = first {
        invariant(requests.count == (json.arrayValue?.count ?? 1), "requests: \(requests.count) requests decoded")
        for r in requests { checkRequest(r) }
    }
    return 0
}

runFuzzer(fuzzRequestJSON)
