/// One advertising report from an LE Advertising Report (subevent 0x02) or LE Extended Advertising Report (0x0D).
/// `data` shares storage with the event bytes it came from.
public struct HCIAdvertisingReport: Equatable, Sendable {
    public enum Format: Sendable { case legacy, extended }

    public var format: Format
    /// Legacy: ADV_IND 0, ADV_DIRECT_IND 1, ADV_SCAN_IND 2, ADV_NONCONN_IND 3, SCAN_RSP 4.
    /// Extended: the 16-bit event-properties bit field.
    public var eventType: UInt16
    /// 0 public, 1 random, 2/3 resolved public/random (extended), 0xFF anonymous (extended).
    public var addressType: UInt8
    public var address: BluetoothAddress
    /// dBm; nil when the controller reported 127, "RSSI not available".
    public var rssi: Int?
    /// Extended reports only: the advertiser's transmit power in dBm (not the 1 m calibrated power); nil if 127.
    public var txPower: Int?
    /// Extended reports only: the advertising set (Advertising_SID, 0–15); `noSID` (0xFF) when there is none.
    /// With the address it says which fragments belong together.
    public var sid: UInt8
    public var data: ArraySlice<UInt8>

    public init(format: Format = .legacy, eventType: UInt16, addressType: UInt8, address: BluetoothAddress, rssi: Int?,
                txPower: Int? = nil, sid: UInt8 = HCIAdvertisingReport.noSID, data: ArraySlice<UInt8>) {
        self.format = format
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.sid = sid
        self.data = data
    }

    /// HCI's "no ADI field in the PDU" Advertising_SID, and every legacy report's.
    public static let noSID: UInt8 = 0xFF

    /// HCI's "not available" value for the signed RSSI and TX power bytes.
    public static let unavailable: Int8 = 127

    static func optionalPower(_ byte: UInt8) -> Int? {
        let v = Int8(bitPattern: byte)
        return v == unavailable ? nil : Int(v)
    }
}
