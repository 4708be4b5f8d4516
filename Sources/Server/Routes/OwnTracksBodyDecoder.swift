import Inputs
import Ingest
import TriggerEngine

/// An OwnTracks HTTP-mode body: location messages are fixes (of `device` when the app's `X-Limit-U`/`X-Limit-D`
/// name it); other message types are valid, counted by type and not evaluated.
struct OwnTracksBodyDecoder: StreamingRecordDecoder {
    var decoder: OwnTracksDecoder
    private(set) var ignored: [String: Int] = [:]

    init(device: String?) {
        decoder = OwnTracksDecoder(source: "request")
        decoder.device = device
    }

    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        var seen: [String] = []
        decoder.decode(chunk, onRecord: onRecord, onIgnored: { seen.append($0.type) }, onError: onError)
        for t in seen { ignored[t, default: 0] += 1 }
    }

    mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        var seen: [String] = []
        decoder.finish(onRecord: onRecord, onIgnored: { seen.append($0.type) }, onError: onError)
        for t in seen { ignored[t, default: 0] += 1 }
    }

    var warnings: [IngestWarning] { [] }
}
