import TriggerEngine

/// The fields of an unencrypted Eddystone-TLM frame (frame type 0x20), as transmitted:
/// `20 | version | VBATT (2, mV) | TEMP (2, signed 8.8 fixed point °C) | ADV_CNT (4) | SEC_CNT (4, 0.1 s)`, big-endian.
///
/// `init(frame:)` reads this layout whatever the version byte says, so that test vectors and tools can look at the
/// raw fields; `BeaconFrameDecoder` only accepts version 0x00, because version 0x01 is the *encrypted* eTLM frame.
public struct EddystoneTLM: Hashable, Sendable {
    public static let frameType: UInt8 = 0x20
    public static let frameLength = 14

    public var version: UInt8
    /// Battery voltage in mV; 0 means "not supported" (e.g. USB-powered).
    public var batteryMilliVolts: UInt16
    /// Beacon temperature in 1/256 °C; 0x8000 (`Int16.min`) means "not supported".
    public var temperatureRaw: Int16
    public var advertisementCount: UInt32
    /// Time since power-on or reboot, in tenths of a second (the spec's 0.1 s resolution, not seconds).
    public var uptimeTenths: UInt32

    public init(version: UInt8 = 0, batteryMilliVolts: UInt16, temperatureRaw: Int16, advertisementCount: UInt32,
                uptimeTenths: UInt32) {
        self.version = version
        self.batteryMilliVolts = batteryMilliVolts
        self.temperatureRaw = temperatureRaw
        self.advertisementCount = advertisementCount
        self.uptimeTenths = uptimeTenths
    }

    /// From the service data after the 0xFEAA UUID, starting at the frame-type byte. nil unless it is a TLM frame of
    /// at least 14 bytes (extra bytes are ignored).
    public init?(frame: ArraySlice<UInt8>) {
        guard frame.count >= Self.frameLength, frame[frame.startIndex] == Self.frameType else { return nil }
        let s = frame.startIndex
        func be(_ at: Int, _ n: Int) -> UInt32 {
            var v: UInt32 = 0
            for k in 0..<n { v = v << 8 | UInt32(frame[s + at + k]) }
            return v
        }
        self.version = frame[s + 1]
        self.batteryMilliVolts = UInt16(be(2, 2))
        self.temperatureRaw = Int16(bitPattern: UInt16(be(4, 2)))
        self.advertisementCount = be(6, 4)
        self.uptimeTenths = be(10, 4)
    }

    /// The 14 frame bytes, starting with 0x20.
    public var frameBytes: [UInt8] {
        var out: [UInt8] = [Self.frameType, version]
        func put(_ v: UInt32, _ n: Int) { for k in (0..<n).reversed() { out.append(UInt8(truncatingIfNeeded: v >> (8 * k))) } }
        put(UInt32(batteryMilliVolts), 2)
        put(UInt32(UInt16(bitPattern: temperatureRaw)), 2)
        put(advertisementCount, 4)
        put(uptimeTenths, 4)
        return out
    }

    /// °C, nil when the beacon reports "not supported".
    public var temperatureCelsius: Double? { temperatureRaw == Int16.min ? nil : Double(temperatureRaw) / 256 }

    public var telemetry: BeaconTelemetry {
        BeaconTelemetry(batteryMilliVolts: batteryMilliVolts == 0 ? nil : Int(batteryMilliVolts),
                        temperatureCelsius: temperatureCelsius,
                        advertisementCount: advertisementCount,
                        uptimeSeconds: Double(uptimeTenths) / 10)
    }
}
