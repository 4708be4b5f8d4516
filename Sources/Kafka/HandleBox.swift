/// A handle crossing to a thread of ours (librdkafka's handles are thread-safe).
struct HandleBox: @unchecked Sendable {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
}
