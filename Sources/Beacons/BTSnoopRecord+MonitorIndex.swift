/// Linux monitor (btmon) records that say which adapter a controller index is: the capture's own naming.
extension BTSnoopRecord {
    /// Monitor opcode 0: a controller index appeared (btmon writes one for every adapter present when it starts).
    static let monitorNewIndexOpcode: UInt16 = 0

    /// A "New Index" record's adapter name (`hci1`): type, bus, address (6), then the name in 8 NUL-padded bytes.
    /// nil for every other record, and for a name that is empty or not printable ASCII (a damaged record names
    /// nothing rather than something odd).
    public var newIndexAdapterName: String? {
        guard monitorOpcode == Self.monitorNewIndexOpcode, controllerIndex != nil, data.count >= 16 else { return nil }
        let name = data[(data.startIndex + 8)..<(data.startIndex + 16)].prefix { $0 != 0 }
        guard !name.isEmpty, name.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }
}
