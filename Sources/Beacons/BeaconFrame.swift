import TriggerEngine

/// One decoded beacon advertisement: what `BeaconFrameDecoder` makes of an advertisement's AD structures.
///
/// iBeacon, AltBeacon and Eddystone-UID frames carry an `identity`; Eddystone-URL, -TLM and -EID frames carry only
/// `telemetry` (SPEC §2: decoded and passed on).
public struct BeaconFrame: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case iBeacon = "ibeacon"
        case altBeacon = "altbeacon"
        case eddystoneUID = "eddystone-uid"
        case eddystoneURL = "eddystone-url"
        case eddystoneTLM = "eddystone-tlm"
        case eddystoneEID = "eddystone-eid"
    }

    public var kind: Kind
    public var identity: BeaconIdentity?
    public var telemetry: BeaconTelemetry?
    /// Calibrated received power at 1 m, dBm, as `BeaconSighting.txPower` wants it: iBeacon's measured power,
    /// AltBeacon's reference RSSI, Eddystone's ranging data minus 41 dB (see `rangingPower`). nil for TLM frames.
    public var txPower: Int?
    /// Eddystone only: the frame's raw "ranging data", the received power at **0 m** in dBm, as transmitted.
    public var rangingPower: Int?
    /// iBeacon and AltBeacon: the Bluetooth SIG company identifier of the manufacturer-specific data (0x004C Apple).
    public var manufacturerId: UInt16?
    /// AltBeacon only: the MFG RSVD byte after the reference RSSI; nil when the advertisement ends before it.
    public var altBeaconReserved: UInt8?
    /// Eddystone-TLM only: the raw fields behind `telemetry`.
    public var tlm: EddystoneTLM?

    public init(kind: Kind, identity: BeaconIdentity? = nil, telemetry: BeaconTelemetry? = nil, txPower: Int? = nil,
                rangingPower: Int? = nil, manufacturerId: UInt16? = nil, altBeaconReserved: UInt8? = nil,
                tlm: EddystoneTLM? = nil) {
        self.kind = kind
        self.identity = identity
        self.telemetry = telemetry
        self.txPower = txPower
        self.rangingPower = rangingPower
        self.manufacturerId = manufacturerId
        self.altBeaconReserved = altBeaconReserved
        self.tlm = tlm
    }

    /// Eddystone's ranging data is calibrated at 0 m; iBeacon/AltBeacon's at 1 m. The Eddystone specification
    /// (protocol-specification.md, "Tx Power") says to measure at 1 m and add 41 dBm, the signal loss over the first
    /// metre, and AltBeacon's Eddystone layouts read the byte as `p:3-3:-41`; so 1 m power = ranging data − 41.
    public static let eddystoneRangingOffset = 41
}
