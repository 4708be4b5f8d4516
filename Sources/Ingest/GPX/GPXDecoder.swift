import JSON
import TriggerEngine

/// GPX 1.0 and 1.1: track points, route points and waypoints, with `time`, `ele`, `hdop`/`pdop` as accuracy, and
/// speed and course from the GPX 1.0 elements or the common extensions (Garmin `gpxtpx:speed`/`course`, plain
/// `speed`/`course`).
///
/// A GPX file is one device by default: every point carries the decoder's default device (the CLI passes the file's
/// base name or `--device`). A Garmin unit splits one recording into tracks `ACTIVE LOG`, `ACTIVE LOG #2`…, so
/// track names are not devices; `devicePerTrack` names each track's or route's points by its `<name>` instead, for
/// files that really hold one track per vehicle. Waypoints are places, not a journey: they are counted and left out
/// (one warning) unless `waypoints` is set, and then carry the default device.
///
/// GPX is one XML document, so the decoder buffers chunks and decodes at `finish`. A point without `time` is one
/// `missing-time` error (the engine needs time); malformed XML ends the file with one error naming line and offset.
public struct GPXDecoder: StreamingRecordDecoder, Sendable {
    /// Metres of horizontal error per unit of HDOP (a typical consumer-receiver UERE; PDOP is used when HDOP is absent).
    public static let metresPerDilution = 5.0

    public let source: String
    public let defaultDevice: String?
    public let devicePerTrack: Bool
    public let waypoints: Bool
    private var buffer: [UInt8] = []
    public private(set) var warnings: [IngestWarning] = []

    public init(source: String, defaultDevice: String? = nil, devicePerTrack: Bool = false, waypoints: Bool = false) {
        self.source = source
        self.defaultDevice = defaultDevice
        self.devicePerTrack = devicePerTrack
        self.waypoints = waypoints
    }

    public mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        buffer.append(contentsOf: chunk)
    }

    private struct Point {
        var line: Int
        var offset: Int
        var kind: Substring
        var latitude: Double?
        var longitude: Double?
        var time: String?
        var elevation: Double?
        var hdop: Double?
        var pdop: Double?
        var speed: Double?
        var course: Double?
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        var tokenizer = XMLTokenizer(buffer)
        buffer = []
        var path: [Substring] = []
        var containerName: String?
        var point: Point?
        var pendingText = ""
        var skippedWaypoints = 0
        defer {
            if skippedWaypoints > 0 {
                warnings.append(IngestWarning(source: source, kind: IngestWarning.Kind.waypointsSkipped,
                                              message: "\(skippedWaypoints) waypoints left out (they are not a track)"))
            }
        }
        func error(_ p: Point?, field: String?, _ reason: String, kind: String) -> IngestError {
            IngestError(source: source, line: p?.line ?? tokenizer.line, offset: p?.offset ?? tokenizer.offset, field: field,
                        reason: reason, kind: kind)
        }
        do throws(XMLTokenizer.Failure) {
            var sawRoot = false
            while let token = try tokenizer.next() {
                switch token {
                case let .start(name, attributes, selfClosing):
                    if !sawRoot {
                        sawRoot = true
                        guard name == "gpx" else {
                            onError(error(nil, field: nil, "the root element is <\(name)>, not <gpx>", kind: IngestError.Kind.malformedXML))
                            return
                        }
                    }
                    pendingText = ""
                    if name == "trk" || name == "rte" { containerName = nil }
                    if name == "wpt", !waypoints {
                        skippedWaypoints += 1
                        if !selfClosing { path.append(name) }
                    } else if name == "trkpt" || name == "rtept" || name == "wpt" {
                        var p = Point(line: tokenizer.line, offset: tokenizer.offset, kind: name)
                        for a in attributes {
                            if a.name == "lat" { p.latitude = Self.number(a.value) ?? .nan }
                            if a.name == "lon" { p.longitude = Self.number(a.value) ?? .nan }
                        }
                        point = p
                        if selfClosing { emit(&point, containerName, onRecord, onError) }
                    } else if !selfClosing {
                        path.append(name)
                    }
                case let .end(name):
                    if name == "wpt", !waypoints {
                        if path.last == name { path.removeLast() }
                        continue
                    }
                    if name == "trkpt" || name == "rtept" || name == "wpt" {
                        emit(&point, containerName, onRecord, onError)
                        continue
                    }
                    let text = pendingText.trimmingWhitespace
                    pendingText = ""
                    if point != nil {
                        switch name {
                        case "time": point!.time = text
                        case "ele": point!.elevation = Self.number(text)
                        case "hdop": point!.hdop = Self.number(text)
                        case "pdop": point!.pdop = Self.number(text)
                        case "speed": point!.speed = Self.number(text)
                        case "course": point!.course = Self.number(text)
                        default: break
                        }
                    } else if name == "name", let parent = path.dropLast().last, parent == "trk" || parent == "rte" {
                        containerName = text.isEmpty ? nil : text
                    }
                    if path.last == name { path.removeLast() }
                    if name == "trk" || name == "rte" { containerName = nil }
                case let .text(t):
                    pendingText += t
                }
            }
            if !sawRoot { onError(error(nil, field: nil, "no <gpx> element", kind: IngestError.Kind.malformedXML)) }
            if let open = path.last {
                onError(error(nil, field: nil, "malformed XML: the document ends inside <\(open)>", kind: IngestError.Kind.malformedXML))
            }
        } catch let failure {
            onError(IngestError(source: source, line: failure.line, offset: failure.offset, field: nil,
                                reason: "malformed XML: \(failure.reason)", kind: IngestError.Kind.malformedXML))
        }
    }

    private func emit(_ point: inout Point?, _ containerName: String?, _ onRecord: (LocationFix) -> Void,
                      _ onError: (IngestError) -> Void) {
        guard let p = point else { return }
        point = nil
        let field = "\(p.kind)"
        func fail(_ f: String, _ reason: String, _ kind: String) {
            onError(IngestError(source: source, line: p.line, offset: p.offset, field: "\(field)/\(f)", reason: reason, kind: kind))
        }
        guard let lat = p.latitude, let lon = p.longitude else {
            return fail(p.latitude == nil ? "lat" : "lon", "the point has no \(p.latitude == nil ? "lat" : "lon") attribute",
                        IngestError.Kind.missingField)
        }
        guard let time = p.time else { return fail("time", "the point has no <time>; the engine needs one", IngestError.Kind.missingTime) }
        guard let timestamp = Timestamp(rfc3339: time) else {
            return fail("time", "\"\(time)\" is not an ISO 8601 time", IngestError.Kind.invalidTimestamp)
        }
        guard let device = (devicePerTrack ? containerName : nil) ?? defaultDevice else {
            return fail("name", devicePerTrack ? "no track/route name and no default device" : "no default device",
                        IngestError.Kind.missingDevice)
        }
        let accuracy = p.hdop.map { $0 * Self.metresPerDilution } ?? p.pdop.map { $0 * Self.metresPerDilution }
        let fix = LocationFix(device: device, timestamp: timestamp, latitude: lat, longitude: lon, horizontalAccuracy: accuracy,
                              altitude: p.elevation, speed: p.speed, course: p.course)
        if let reason = fix.invalidity {
            let f = reason == .latitudeOutOfRange ? "lat" : reason == .longitudeOutOfRange ? "lon" : "point"
            return fail(f, reason.description, reason.rawValue)
        }
        onRecord(fix)
    }

    static func number(_ s: String) -> Double? {
        var copy = s
        return copy.withUTF8 { NumberParsing.double(UnsafeRawBufferPointer($0)) }
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
