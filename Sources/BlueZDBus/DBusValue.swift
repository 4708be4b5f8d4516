/// One D-Bus value as the message reader produces it: the whole tree, so that mapping bluetoothd's property
/// dictionaries to sightings is pure Swift that tests can feed with recorded message contents.
///
/// `ay` is kept as `bytes` (advertising data is read as one array, not byte by byte); every other array is `array`,
/// and an array of dictionary entries (`a{…}`) is `dictionary`.
public indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor: its number means nothing once the message is gone, so only its presence is kept.
    case unixFileDescriptor
    case bytes([UInt8])
    case array([DBusValue])
    case dictionary([DBusValue: DBusValue])
    case variant(DBusValue)
    case structure([DBusValue])

    /// The D-Bus type code or signature, for error messages: `n`, `s`, `ay`, `a{…}`, `v`…
    public var typeName: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFileDescriptor: "h"
        case .bytes: "ay"
        case .array: "a"
        case .dictionary: "a{…}"
        case .variant(let inner): "v(\(inner.typeName))"
        case .structure: "(…)"
        }
    }

    /// The string of an `s` or `o`; nil for anything else.
    public var text: String? {
        switch self {
        case .string(let s), .objectPath(let s): s
        default: nil
        }
    }

    /// The value inside a variant, or the value itself.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }
}
