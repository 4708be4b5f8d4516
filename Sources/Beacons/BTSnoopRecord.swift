import TriggerEngine

/// One btsnoop packet record. `data` shares storage with the reader's buffer.
public struct BTSnoopRecord: Sendable {
    /// 1-based position in the file (the numbering Wireshark and btmon show).
    public var number: Int
    /// Byte offset of the record header in the file.
    public var offset: Int
    public var datalink: BTSnoopDatalink
    public var originalLength: UInt32
    public var flags: UInt32
    public var cumulativeDrops: UInt32
    public var timestamp: Timestamp
    public var data: ArraySlice<UInt8>

    /// Monitor opcode 3 ("HCI event"); H1 flag bits 0b11 (received command/event); H4 type byte 0x04.
    static let monitorEventOpcode: UInt32 = 3

    /// The HCI event in this record, event code first; nil when the record is not an HCI event.
    public var hciEvent: ArraySlice<UInt8>? {
        switch datalink {
        case .linuxMonitor:
            return flags & 0xFFFF == Self.monitorEventOpcode ? data : nil
        case .h1:
            return flags & 0b11 == 0b11 ? data : nil
        case .h4:
            return data.first == HCIEventParser.eventPacketIndicator ? data.dropFirst() : nil
        }
    }

    /// Linux monitor only: the controller index (hciN); nil for system records (index 0xFFFF) and other datalinks.
    public var controllerIndex: UInt16? {
        guard datalink == .linuxMonitor else { return nil }
        let index = UInt16(truncatingIfNeeded: flags >> 16)
        return index == 0xFFFF ? nil : index
    }

    /// Linux monitor only: the monitor opcode (0 new index, 2 command, 3 event, 12 system note, …).
    public var monitorOpcode: UInt16? {
        datalink == .linuxMonitor ? UInt16(truncatingIfNeeded: flags & 0xFFFF) : nil
    }

    /// btsnoop time is microseconds since 0000-01-01 00:00 (proleptic Gregorian); this is that epoch in Unix µs.
    public static let epochOffsetMicroseconds: Int64 = 0x00DC_DDB3_0F2F_8000

    static func timestamp(btsnoop value: UInt64) -> Timestamp {
        Timestamp(microseconds: Int64(bitPattern: value) &- epochOffsetMicroseconds)
    }

    static func btsnoopTime(_ t: Timestamp) -> UInt64 {
        UInt64(bitPattern: t.microseconds &+ epochOffsetMicroseconds)
    }
}
