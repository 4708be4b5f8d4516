import Ingest
import TriggerEngine

/// Everything a trace decoder produced from one input.
public struct TraceOutcome: Equatable {
    public var fixes: [LocationFix] = []
    public var errors: [IngestError] = []
    public var ignored = 0
}

/// Decodes `bytes` with a fresh decoder the way `replay`/`convert` and the stream inputs do: `decode` per chunk, then
/// `finish`. `split` nil feeds everything at once; otherwise two chunks cut at `split`.
public func decodeTrace(_ make: () -> TraceDecoder, _ bytes: [UInt8], split: Int?) -> TraceOutcome {
    var decoder = make()
    var out = TraceOutcome()
    bytes.withUnsafeBytes { all in
        let cut = split ?? all.count
        for part in [all[..<cut], all[cut...]] where !part.isEmpty || split == nil {
            decoder.decode(UnsafeRawBufferPointer(rebasing: part), onRecord: { out.fixes.append($0) },
                           onError: { out.errors.append($0) })
        }
    }
    decoder.finish(onRecord: { out.fixes.append($0) }, onError: { out.errors.append($0) })
    out.ignored = decoder.ignoredCount
    return out
}

/// Decodes whole and in two chunks, checks the outcomes agree (decoders promise chunk boundaries change nothing, not
/// even an error's line or offset) and that every fix is one the engine accepts. Returns the whole-input outcome.
@discardableResult
public func checkTrace(_ format: TraceFormat, _ bytes: [UInt8], defaultDevice: String? = "fuzz") -> TraceOutcome {
    let make = { TraceDecoder(format: format, source: "fuzz", defaultDevice: defaultDevice)! }
    let whole = decodeTrace(make, bytes, split: nil)
    let cut = splitPoint(bytes)
    let split = decodeTrace(make, bytes, split: cut)
    invariant(whole == split, "\(format): decoding in two chunks (cut at \(cut)) differs from decoding at once:\n"
        + "  whole: \(whole.fixes.count) fixes, \(whole.errors.count) errors, \(whole.ignored) ignored\n"
        + "  split: \(split.fixes.count) fixes, \(split.errors.count) errors, \(split.ignored) ignored\n"
        + "  first difference: \(firstDifference(whole, split))")
    for fix in whole.fixes { checkFix(fix, format: "\(format)") }
    for error in whole.errors {
        invariant(!error.kind.isEmpty && !error.reason.isEmpty, "\(format): an error without kind or reason: \(error)")
    }
    return whole
}

func firstDifference(_ a: TraceOutcome, _ b: TraceOutcome) -> String {
    for (x, y) in zip(a.fixes, b.fixes) where x != y { return "fix \(x) vs \(y)" }
    for (x, y) in zip(a.errors, b.errors) where x != y { return "error \(x) vs \(y)" }
    return a.fixes.count != b.fixes.count || a.errors.count != b.errors.count ? "counts" : "ignored count"
}

/// SPEC §2: an accepted fix has a device, a finite latitude in [-90, 90] and longitude in [-180, 180], an accuracy
/// that is absent or finite and ≥ 0, and finite altitude, speed and course. Checked field by field, not only through
/// `invalidity`, so a bug there is caught too.
public func checkFix(_ f: LocationFix, format: String) {
    invariant(f.invalidity == nil, "\(format): accepted an invalid fix (\(f.invalidity!)): \(f)")
    invariant(!f.device.isEmpty, "\(format): a fix without a device: \(f)")
    invariant(f.latitude.isFinite && f.latitude >= -90 && f.latitude <= 90, "\(format): latitude out of range: \(f)")
    invariant(f.longitude.isFinite && f.longitude >= -180 && f.longitude <= 180, "\(format): longitude out of range: \(f)")
    if let a = f.horizontalAccuracy { invariant(a.isFinite && a >= 0, "\(format): bad accuracy: \(f)") }
    for (name, v) in [("altitude", f.altitude), ("speed", f.speed), ("course", f.course)] {
        if let v { invariant(v.isFinite, "\(format): \(name) not finite: \(f)") }
    }
}
