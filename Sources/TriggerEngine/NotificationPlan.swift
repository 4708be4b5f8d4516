import JSON

/// A request's notification JSON compiled once: everything the request fixes (its identifier, content, templates'
/// text, userInfo, region) as escaped bytes, with holes for what each firing supplies (the device, the event, the
/// deliveryId's time, the evidence, the firing time).
///
/// Writing a notification is then one walk along one byte array. Reading the same text from the request's Strings
/// and templates touched ten or more heap objects per notification, cache misses when thousands of requests fire
/// in turn (most of the renderer's time in a notification-dense replay). The engine builds a request's plan when
/// it first fires (`EngineCore.plan(slot:)`), so requests that never fire cost nothing.
final class NotificationPlan: Sendable {
    /// What a firing fills in. Stored in `program` as one byte; `run` is followed by a 32-bit length and the bytes.
    enum Hole: UInt8 {
        case run, device, event, evidenceTime, latitude, longitude, proximity, deliveryIdTail, evidence, firedAt
        case nearbyDevice, nearbyDistance
    }

    let compiled: CompiledRequest
    let program: [UInt8]
    /// Read for most notifications (a replay's summary, the journal's record): kept beside the program, which was
    /// just read, where the request's own copy is a cache miss away (8 % of a notification-dense replay).
    let identifier: String
    let regionID: String
    /// Part of every deliveryId: here for the same reason (the compiled request's copy was 6 % of a dense-circle
    /// run's samples, all of it that one load).
    let revision: UInt64
    /// Read by the host for every notification (is the request delivered now?): the compiled request's copy was a
    /// cache miss per notification on serve's engine thread (0.8 % of serve's samples on `http_ingest.py`).
    let repeats: Bool

    init(_ c: CompiledRequest) {
        compiled = c
        let identifier = c.request.identifier, regionID = c.request.trigger.region.id
        self.identifier = identifier
        self.regionID = regionID
        revision = c.revision
        repeats = c.request.trigger.repeats
        // The request's fields are read where they lie, never its region or content copied whole: a copy retains
        // every object inside (a polygon's arrays among them), each a cache miss when many requests fire for the
        // first time in turn (those retains were 45 % of this initializer's samples on a dense polygon workload).
        let regionName = c.request.trigger.region.name
        // The constant JSON of a notification is ~330 bytes; the request's own text comes on top (the identifier
        // and region id twice), userInfo guessed at 64 bytes.
        var capacity = 330 + 64 + 2 * identifier.utf8.count + 2 * regionID.utf8.count + (regionName?.utf8.count ?? 0)
        capacity += c.request.content.title.utf8.count + c.request.content.subtitle.utf8.count
        capacity += c.request.content.body.utf8.count + (c.request.content.sound?.utf8.count ?? 0)
        capacity += c.request.content.categoryIdentifier.utf8.count + (c.request.content.threadIdentifier?.utf8.count ?? 0)
        capacity += c.request.content.summaryArgument?.utf8.count ?? 0
        var b = Builder(capacity: capacity)
        let firing = FiredNotification.Firing.self
        func template(_ t: ContentTemplate) {
            for s in t.segments {
                switch s {
                case .text(let text): b.escaped(text)
                case .placeholder(let p):
                    switch p {
                    case .device: b.hole(.device)
                    case .regionID: b.escaped(regionID)
                    case .regionName: b.escaped(regionName ?? regionID)
                    case .event: b.hole(.event)
                    case .fixTime: b.hole(.evidenceTime)
                    case .fixLatitude: b.hole(.latitude)
                    case .fixLongitude: b.hole(.longitude)
                    case .beaconProximity: b.hole(.proximity)
                    case .nearbyDevice: b.hole(.nearbyDevice)
                    case .nearbyDistance: b.hole(.nearbyDistance)
                    case .userInfo: b.escaped(firing.userInfoText(p, of: c))
                    }
                }
            }
        }
        b.literal("{\"identifier\":")
        b.quoted(identifier)
        // The id's pieces escaped one by one: JSON escaping works byte by byte, so this is the whole id escaped.
        b.literal(",\"deliveryId\":\"")
        b.escaped(identifier)
        b.literal("/")
        b.hole(.device)
        b.literal("/")
        b.hole(.deliveryIdTail)
        b.literal("\",\"content\":{\"title\":\"")
        template(c.templates.title)
        b.literal("\",\"subtitle\":\"")
        template(c.templates.subtitle)
        b.literal("\",\"body\":\"")
        template(c.templates.body)
        b.literal("\"")
        if let badge = c.request.content.badge {
            b.literal(",\"badge\":")
            JSONWriter.appendDecimal(Int64(badge), to: &b.run)
        }
        if let sound = c.request.content.sound {
            b.literal(",\"sound\":")
            b.quoted(sound)
        }
        b.literal(",\"categoryIdentifier\":")
        b.quoted(c.request.content.categoryIdentifier)
        b.literal(",\"threadIdentifier\":\"")
        if let t = c.templates.threadIdentifier { template(t) } else { b.escaped(regionID) }
        b.literal("\",\"summaryArgument\":\"")
        if let t = c.templates.summaryArgument { template(t) } else { b.hole(.device) }
        b.literal("\",\"userInfo\":")
        var userInfo = JSONWriter(appendingTo: [])
        swap(&userInfo.bytes, &b.run)
        userInfo.value(c.request.content.userInfo)
        swap(&userInfo.bytes, &b.run)
        b.literal("},\"trigger\":{\"type\":\"location\",\"event\":\"")
        b.hole(.event)
        b.literal(c.request.trigger.repeats ? "\",\"repeats\":true" : "\",\"repeats\":false")
        b.literal(",\"region\":{\"type\":")
        b.quoted(c.regionTypeName)
        b.literal(",\"id\":")
        b.quoted(regionID)
        if let name = regionName {
            b.literal(",\"name\":")
            b.quoted(name)
        }
        b.literal("}},\"device\":\"")
        b.hole(.device)
        b.literal("\"")
        b.hole(.evidence)
        b.literal(",\"firedAt\":\"")
        b.hole(.firedAt)
        b.literal("\"}")
        b.flush()
        program = b.program
    }

    /// Appends constant runs and holes to the program. A run's bytes go straight into the program behind a header
    /// whose length is filled in when the run ends: one array, allocated once at about its final size (a plan is
    /// built for every request that fires, so in a short replay of many requests its cost shows).
    struct Builder {
        var program: [UInt8] = []
        /// Where the open run's header is, or nil between a hole and the next constant byte.
        private var runHeader: Int?

        /// `capacity`: about the program's final size, so that it is allocated once and not much larger than
        /// it needs to be (plans live as long as their requests).
        init(capacity: Int) { program.reserveCapacity(capacity) }

        /// The program's bytes, for constant text to be appended to (a run is opened first).
        var run: [UInt8] {
            get { program }
            _modify {
                openRun()
                yield &program
            }
        }

        mutating func literal(_ s: StaticString) { JSONWriter.appendLiteral(s, to: &run) }
        mutating func escaped(_ s: String) { JSONWriter.appendEscaped(s, to: &run) }
        mutating func quoted(_ s: String) { JSONWriter.appendQuoted(s, to: &run) }

        mutating func hole(_ h: Hole) {
            flush()
            program.append(h.rawValue)
        }

        private mutating func openRun() {
            guard runHeader == nil else { return }
            runHeader = program.count
            program.append(contentsOf: [Hole.run.rawValue, 0, 0, 0, 0])
        }

        /// Ends the open run: its length (32 bits, little-endian) into its header.
        mutating func flush() {
            guard let h = runHeader else { return }
            let n = UInt32(program.count - h - 5)
            for k in 0..<4 { program[h + 1 + k] = UInt8(truncatingIfNeeded: n >> (8 * UInt32(k))) }
            runHeader = nil
        }
    }

    /// A firing's values that a notification writes more than once, formatted once by the caller: its time (in the
    /// fix, in firedAt, in a {fix.time}; usually the fix's own) and the fix's coordinates (in the fix and often in
    /// a template). The coordinates are empty when there is no fix.
    struct Texts {
        var firedAt: UnsafeBufferPointer<UInt8>
        var latitude: UnsafeBufferPointer<UInt8>
        var longitude: UnsafeBufferPointer<UInt8>
    }

    /// The notification of `g`, a firing of this plan's request.
    func write(_ g: FiredNotification.Firing, _ texts: Texts, to o: inout JSONCursor) {
        func time(_ t: Timestamp) {
            if t == g.firedAt {
                o.append(texts.firedAt)
            } else {
                o.write(upTo: Timestamp.rfc3339Capacity) { t.writeRFC3339(into: $0) }
            }
        }
        program.withUnsafeBufferPointer { p in
            let base = p.baseAddress!
            var i = 0
            while i < p.count {
                let hole = Hole(rawValue: base[i]).unsafelyUnwrapped
                i += 1
                switch hole {
                case .run:
                    let n = Int(UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self).littleEndian)
                    o.append(UnsafeBufferPointer(start: base + i + 4, count: n))
                    i += 4 + n
                case .device: o.escaped(g.device)
                case .event: if g.event == .entry { o.literal("entry") } else { o.literal("exit") }
                case .evidenceTime: if let t = g.fix?.timestamp ?? g.beacon?.timestamp { time(t) }
                case .latitude: o.append(texts.latitude)
                case .longitude: o.append(texts.longitude)
                case .proximity: if let beacon = g.beacon { o.escaped(beacon.proximity.rawValue) }
                case .nearbyDevice: if let nearby = g.nearby { o.escaped(nearby.device) }
                case .nearbyDistance: if let nearby = g.nearby { o.escaped(FiredNotification.Firing.distanceText(nearby.distance)) }
                case .deliveryIdTail:
                    o.write(upTo: EngineCore.deliveryIdTailCapacity) {
                        EngineCore.writeDeliveryIdTail(revision: revision, at: g.firedAt, ordinal: g.ordinal, into: $0)
                    }
                case .evidence:
                    if let fix = g.fix {
                        o.literal(",\"fix\":{\"timestamp\":\"")
                        time(fix.timestamp)
                        o.literal("\",\"latitude\":")
                        o.append(texts.latitude)
                        o.literal(",\"longitude\":")
                        o.append(texts.longitude)
                        if let a = fix.horizontalAccuracy {
                            o.literal(",\"horizontalAccuracy\":")
                            o.number(a)
                        }
                        o.literal("}")
                    }
                    if let beacon = g.beacon {
                        // Beacon firings are a gateway's few per second: the snapshot goes through the array writer.
                        var nested = JSONWriter(capacity: 256)
                        beacon.writeJSON(to: &nested)
                        o.literal(",\"beacon\":")
                        nested.bytes.withUnsafeBufferPointer { o.append($0) }
                    }
                    if let nearby = g.nearby {
                        var nested = JSONWriter(capacity: 256)
                        nearby.writeJSON(to: &nested)
                        o.literal(",\"nearby\":")
                        nested.bytes.withUnsafeBufferPointer { o.append($0) }
                    }
                case .firedAt: o.append(texts.firedAt)
                }
            }
        }
    }
}
