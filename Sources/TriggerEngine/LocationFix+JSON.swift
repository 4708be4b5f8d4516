import JSON

extension LocationFix {
    /// One NDJSON line body with the SPEC §2 field names; absent optional fields are left out.
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.field(literal: "device", device)
        w.key(literal: "timestamp")
        w.timestamp(timestamp)
        w.field(literal: "latitude", latitude)
        w.field(literal: "longitude", longitude)
        if let horizontalAccuracy { w.field(literal: "horizontalAccuracy", horizontalAccuracy) }
        if let altitude { w.field(literal: "altitude", altitude) }
        if let speed { w.field(literal: "speed", speed) }
        if let course { w.field(literal: "course", course) }
        w.endObject()
    }
}

extension BeaconSighting {
    /// One NDJSON line body: observer, time, identity, radio figures, telemetry.
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.field(literal: "device", device)
        w.key(literal: "timestamp")
        w.timestamp(timestamp)
        if let identity { identity.writeFields(to: &w) }
        if let rssi { w.field(literal: "rssi", rssi) }
        if let txPower { w.field(literal: "txPower", txPower) }
        if let address { w.field(literal: "address", address) }
        w.field(literal: "proximity", proximity.rawValue)
        if let distance { w.field(literal: "distance", hundredths: distance) }
        if let t = telemetry {
            w.key(literal: "telemetry")
            w.beginObject()
            if let url = t.url { w.field(literal: "url", url) }
            if let v = t.batteryMilliVolts { w.field(literal: "batteryMilliVolts", v) }
            if let v = t.temperatureCelsius { w.field(literal: "temperatureCelsius", v) }
            if let v = t.advertisementCount { w.field(literal: "advertisementCount", Int(v)) }
            if let v = t.uptimeSeconds { w.field(literal: "uptimeSeconds", v) }
            if let v = t.ephemeralId { w.field(literal: "ephemeralId", v) }
            w.endObject()
        }
        w.endObject()
    }
}
