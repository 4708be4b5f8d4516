import JSON

extension LocationFix {
    /// One NDJSON line body with the SPEC §2 field names; absent optional fields are left out.
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.field("device", device)
        w.key("timestamp")
        w.timestamp(timestamp)
        w.field("latitude", latitude)
        w.field("longitude", longitude)
        if let horizontalAccuracy { w.field("horizontalAccuracy", horizontalAccuracy) }
        if let altitude { w.field("altitude", altitude) }
        if let speed { w.field("speed", speed) }
        if let course { w.field("course", course) }
        w.endObject()
    }
}

extension BeaconSighting {
    /// One NDJSON line body: observer, time, identity, radio figures, telemetry.
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.field("device", device)
        w.key("timestamp")
        w.timestamp(timestamp)
        if let identity { identity.writeFields(to: &w) }
        if let rssi { w.field("rssi", rssi) }
        if let txPower { w.field("txPower", txPower) }
        if let address { w.field("address", address) }
        w.field("proximity", proximity.rawValue)
        if let distance { w.field("distance", (distance * 100).rounded() / 100) }
        if let t = telemetry {
            w.key("telemetry")
            w.beginObject()
            if let url = t.url { w.field("url", url) }
            if let v = t.batteryMilliVolts { w.field("batteryMilliVolts", v) }
            if let v = t.temperatureCelsius { w.field("temperatureCelsius", v) }
            if let v = t.advertisementCount { w.field("advertisementCount", Int(v)) }
            if let v = t.uptimeSeconds { w.field("uptimeSeconds", v) }
            if let v = t.ephemeralId { w.field("ephemeralId", v) }
            w.endObject()
        }
        w.endObject()
    }
}
