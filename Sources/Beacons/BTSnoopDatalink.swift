/// The btsnoop datalink types GeoTrigger reads and writes.
public enum BTSnoopDatalink: UInt32, Sendable, CaseIterable {
    /// Unencapsulated HCI (H1): the record flags say command/event (bit 1) and direction (bit 0, 1 = received).
    case h1 = 1001
    /// HCI UART (H4): each record starts with the packet-type byte (0x04 = event).
    case h4 = 1002
    /// Linux monitor (btmon): flags = controller index << 16 | opcode (3 = HCI event); no packet-type byte.
    case linuxMonitor = 2001
}
