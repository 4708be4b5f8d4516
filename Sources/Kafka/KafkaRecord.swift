/// A message as a partition stores it: its partition, offset, key, value and headers (the last value of each name).
public struct KafkaRecord: Sendable, Equatable {
    public var partition: Int
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [String: [UInt8]]
}
