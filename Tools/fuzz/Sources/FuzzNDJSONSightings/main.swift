import FuzzChecks
import FuzzDriver
import Ingest
import TriggerEngine

/// libFuzzer entry: bytes as NDJSON beacon sightings through `NDJSONSightingDecoder`, whole and in two chunks.
func fuzzNDJSONSightings(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let whole = decodeSightings(input, split: nil)
    let cut = splitPoint(input)
    let split = decodeSightings(input, split: cut)
    invariant(whole.sightings == split.sightings && whole.errors == split.errors,
              "sightings: decoding in two chunks (cut at \(cut)) differs from decoding at once")
    let lines = nonBlankLines(input)
    invariant(whole.sightings.count + whole.errors.count == lines.count,
              "sightings: \(whole.sightings.count) sightings and \(whole.errors.count) errors from \(lines.count) lines")
    for s in whole.sightings { checkSighting(s) }
    return 0
}

func decodeSightings(_ input: [UInt8], split: Int?) -> (sightings: [BeaconSighting], errors: [IngestError]) {
    var decoder = NDJSONSightingDecoder(source: "fuzz", defaultDevice: "fuzz")
    var sightings: [BeaconSighting] = []
    var errors: [IngestError] = []
    input.withUnsafeBytes { all in
        let cut = split ?? all.count
        for part in [all[..<cut], all[cut...]] {
            decoder.decode(UnsafeRawBufferPointer(rebasing: part), onRecord: { sightings.append($0) },
                           onError: { errors.append($0) })
        }
    }
    decoder.finish(onRecord: { sightings.append($0) }, onError: { errors.append($0) })
    return (sightings, errors)
}

/// SPEC §2 and the decoder's documented ranges: an observer, an identity, rssi in -127…20, txPower in -127…127,
/// the address in upper-case colon form, proximity left to the Beacons module.
func checkSighting(_ s: BeaconSighting) {
    invariant(!s.device.isEmpty, "sightings: no observer: \(s)")
    invariant(s.identity != nil, "sightings: no identity: \(s)")
    if let r = s.rssi { invariant((-127...20).contains(r), "sightings: rssi \(r)") }
    if let t = s.txPower { invariant((-127...127).contains(t), "sightings: txPower \(t)") }
    if let a = s.address {
        let ok = a.utf8.count == 17 && a.utf8.enumerated().allSatisfy { k, c in
            k % 3 == 2 ? c == UInt8(ascii: ":") : (c >= 48 && c <= 57) || (c >= 65 && c <= 70)
        }
        invariant(ok, "sightings: address \(a)")
    }
    invariant(s.proximity == .unknown, "sightings: proximity set by the decoder: \(s)")
}

runFuzzer(fuzzNDJSONSightings)
