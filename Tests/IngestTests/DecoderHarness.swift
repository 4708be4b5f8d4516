import Ingest
import TriggerEngine

/// Everything a decoder produced from one input.
struct Decoded: Equatable {
    var fixes: [LocationFix] = []
    var errors: [IngestError] = []

    var kinds: [String] { errors.map(\.kind) }
}

/// Feeds `bytes` to a fresh decoder in chunks of `chunkSize` (nil: all at once), then finishes.
func decode<D: StreamingRecordDecoder<LocationFix>>(_ decoder: D, _ bytes: [UInt8], chunkSize: Int? = nil) -> Decoded {
    var d = decoder
    var out = Decoded()
    let size = max(1, chunkSize ?? max(bytes.count, 1))
    var start = 0
    bytes.withUnsafeBytes { all in
        repeat {
            let end = min(start + size, all.count)
            d.decode(UnsafeRawBufferPointer(rebasing: all[start..<end]), onRecord: { out.fixes.append($0) },
                     onError: { out.errors.append($0) })
            start = end
        } while start < all.count
    }
    d.finish(onRecord: { out.fixes.append($0) }, onError: { out.errors.append($0) })
    return out
}

func decode<D: StreamingRecordDecoder<LocationFix>>(_ decoder: D, _ text: String, chunkSize: Int? = nil) -> Decoded {
    decode(decoder, Array(text.utf8), chunkSize: chunkSize)
}

/// The chunkings every decoder must be indifferent to: byte by byte, an odd size that splits lines and keys, whole.
let chunkings: [Int?] = [1, 7, nil]

func ts(_ text: String) -> Timestamp? { Timestamp(rfc3339: text) }

func approximately(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance * max(1, abs(b))
}

/// Deterministic bytes for robustness tests (xorshift), weighted towards JSON/CSV punctuation.
func hostileBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed | 1
    let alphabet = Array("{}[]\":,\\ 0123456789.-eE+truefalsnul\n\r\t\u{1}latitude".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(count)
    for _ in 0..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        out.append(state % 5 == 0 ? UInt8(truncatingIfNeeded: state >> 8) : alphabet[Int(state >> 16) % alphabet.count])
    }
    return out
}
