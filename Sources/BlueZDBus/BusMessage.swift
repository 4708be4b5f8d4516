import CSystemd

/// An owned `sd_bus_message`: unreferenced in `deinit`. Reads its header and its body into `DBusValue`s; writes
/// the arguments of a method call. Nothing outside this module sees the pointer.
final class BusMessage {
    let pointer: OpaquePointer

    /// Takes over one reference (what sd_bus_process, sd_bus_call and sd_bus_message_new_method_call hand out).
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { sd_bus_message_unref(pointer) }

    var isSignal: Bool {
        var type: UInt8 = 0
        return sd_bus_message_get_type(pointer, &type) >= 0 && type == UInt8(SD_BUS_MESSAGE_SIGNAL)
    }
    var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }
    var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }
    var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }

    /// Every argument of the body, from the start.
    func arguments() throws(BlueZScannerError) -> [DBusValue] {
        try check(sd_bus_message_rewind(pointer, 1), "sd_bus_message_rewind")
        var out: [DBusValue] = []
        while let v = try readNext() { out.append(v) }
        return out
    }

    /// The next complete value at the read position; nil at the end of the current container.
    private func readNext() throws(BlueZScannerError) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let r = sd_bus_message_peek_type(pointer, &type, &contents)
        try check(r, "sd_bus_message_peek_type")
        if r == 0 { return nil }
        let code = UInt8(bitPattern: type)
        let inner = contents.map { String(cString: $0) } ?? ""
        switch code {
        case UInt8(ascii: "a"):
            if inner == "y" {
                var data: UnsafeRawPointer?
                var size = 0
                try check(sd_bus_message_read_array(pointer, CChar(UInt8(ascii: "y")), &data, &size), "sd_bus_message_read_array")
                guard let data, size > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: data, count: size)))
            }
            try enter(type, inner)
            if inner.hasPrefix("{") {
                var entries: [DBusValue: DBusValue] = [:]
                while try enterEntry(String(inner.dropFirst().dropLast())) {
                    let key = try readNext()
                    let value = try readNext()
                    try exit()
                    if let key, let value { entries[key] = value }
                }
                try exit()
                return .dictionary(entries)
            }
            var elements: [DBusValue] = []
            while let e = try readNext() { elements.append(e) }
            try exit()
            return .array(elements)
        case UInt8(ascii: "v"):
            try enter(type, inner)
            let v = try readNext()
            try exit()
            guard let v else { throw .malformedMessage("an empty variant") }
            return .variant(v)
        case UInt8(ascii: "r"):
            try enter(type, inner)
            var fields: [DBusValue] = []
            while let f = try readNext() { fields.append(f) }
            try exit()
            return .structure(fields)
        default:
            return try readBasic(type)
        }
    }

    private func readBasic(_ type: CChar) throws(BlueZScannerError) -> DBusValue {
        func read<T: BitwiseCopyable>(_ initial: T) throws(BlueZScannerError) -> T {
            var v = initial
            try check(sd_bus_message_read_basic(pointer, type, &v), "sd_bus_message_read_basic")
            return v
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try read(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try read(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try read(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try read(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try read(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try read(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try read(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try read(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try read(Double(0)))
        case UInt8(ascii: "h"): _ = try read(Int32(0)); return .unixFileDescriptor
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let p = try read(UnsafePointer<CChar>?.none)
            let s = p.map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "o"): return .objectPath(s)
            case UInt8(ascii: "g"): return .signature(s)
            default: return .string(s)
            }
        default:
            throw .malformedMessage("unknown D-Bus type code \(type)")
        }
    }

    private func enter(_ type: CChar, _ contents: String) throws(BlueZScannerError) {
        try check(sd_bus_message_enter_container(pointer, type, contents), "sd_bus_message_enter_container")
    }

    /// Enters the next dictionary entry; false at the end of the array.
    private func enterEntry(_ contents: String) throws(BlueZScannerError) -> Bool {
        let r = sd_bus_message_enter_container(pointer, CChar(UInt8(ascii: "e")), contents)
        try check(r, "sd_bus_message_enter_container(e)")
        return r > 0
    }

    private func exit() throws(BlueZScannerError) {
        try check(sd_bus_message_exit_container(pointer), "sd_bus_message_exit_container")
    }

    // MARK: Writing (method call arguments)

    /// Appends one value. Arrays and dictionaries take their element signature from their first element.
    func append(_ value: DBusValue) throws(BlueZScannerError) {
        func basic<T: BitwiseCopyable>(_ code: Character, _ v: T) throws(BlueZScannerError) {
            var v = v
            try check(sd_bus_message_append_basic(pointer, CChar(code.asciiValue!), &v), "sd_bus_message_append_basic")
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .boolean(let v): try basic("b", Int32(v ? 1 : 0))
        case .int16(let v): try basic("n", v)
        case .uint16(let v): try basic("q", v)
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .string(let s), .objectPath(let s), .signature(let s):
            let code: CChar = switch value {
            case .objectPath: CChar(UInt8(ascii: "o"))
            case .signature: CChar(UInt8(ascii: "g"))
            default: CChar(UInt8(ascii: "s"))
            }
            // Strings are passed as the C string itself, not a pointer to it.
            let r = s.withCString { sd_bus_message_append_basic(pointer, code, $0) }
            try check(r, "sd_bus_message_append_basic")
        case .unixFileDescriptor:
            throw .malformedMessage("file descriptors are not sent")
        case .bytes(let b):
            try open("a", "y")
            for x in b { try basic("y", x) }
            try close()
        case .array(let elements):
            try open("a", elements.first.map(Self.signature) ?? "v")
            for e in elements { try append(e) }
            try close()
        case .dictionary(let entries):
            let sorted = entries.sorted { ($0.key.text ?? "") < ($1.key.text ?? "") }
            let inner = sorted.first.map { Self.signature($0.key) + Self.signature($0.value) } ?? "sv"
            try open("a", "{\(inner)}")
            for (k, v) in sorted {
                try open("e", inner)
                try append(k)
                try append(v)
                try close()
            }
            try close()
        case .variant(let inner):
            try open("v", Self.signature(inner))
            try append(inner)
            try close()
        case .structure(let fields):
            try open("r", fields.map(Self.signature).joined())
            for f in fields { try append(f) }
            try close()
        }
    }

    private func open(_ type: Character, _ contents: String) throws(BlueZScannerError) {
        try check(sd_bus_message_open_container(pointer, CChar(type.asciiValue!), contents), "sd_bus_message_open_container")
    }

    private func close() throws(BlueZScannerError) {
        try check(sd_bus_message_close_container(pointer), "sd_bus_message_close_container")
    }

    static func signature(_ v: DBusValue) -> String {
        switch v {
        case .bytes: "ay"
        case .array(let e): "a" + (e.first.map(signature) ?? "v")
        case .dictionary(let d): "a{" + (d.first.map { signature($0.key) + signature($0.value) } ?? "sv") + "}"
        case .variant: "v"
        case .structure(let f): "(" + f.map(signature).joined() + ")"
        default: v.typeName
        }
    }

    private func check(_ r: Int32, _ operation: String) throws(BlueZScannerError) {
        if r < 0 { throw .system(operation: operation, errno: -r) }
    }
}
