/// A message as a partition stores it: its partition, offset, key, value and (when it has one) the value of the
/// header asked for.
public struct KafkaRecord: Sendable, Equatable {
    public var partition: Int
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var header: [UInt8]?
}
