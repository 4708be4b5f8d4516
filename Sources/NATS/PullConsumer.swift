import CNATS
#if canImport(Glibc)
import Glibc
#endif

/// An ephemeral pull consumer that reads one subject of a stream in order from a given sequence, with nothing to
/// acknowledge: the reader keeps its own position (in its checkpoints), so after any failure it makes a new
/// consumer from where it is.
public final class PullConsumer: @unchecked Sendable {
    private let subscription: OpaquePointer
    public let stream: String
    public let subject: String

    public init(connection: NATSConnection, stream: String, subject: String, from sequence: UInt64) throws(NATSError) {
        self.stream = stream
        self.subject = subject
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        let s = strdup(stream), f = strdup(subject)
        defer { free(s); free(f) }
        options.Stream = UnsafePointer(s)
        options.Config.FilterSubject = UnsafePointer(f)
        options.Config.DeliverPolicy = js_DeliverByStartSequence
        options.Config.OptStartSeq = max(1, sequence)
        options.Config.AckPolicy = js_AckNone
        // Gone a while after its reader: a reader killed with the process leaves nothing behind for long.
        options.Config.InactiveThreshold = 30 * 1_000_000_000
        options.Config.MaxRequestBatch = 0
        var sub: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        try check("pull consumer on \(subject) of \(stream) from \(sequence)",
                  js_PullSubscribe(&sub, connection.jetStream, subject, nil, nil, &options, &code), code)
        subscription = sub!
    }

    deinit {
        natsSubscription_Unsubscribe(subscription)
        natsSubscription_Destroy(subscription)
    }

    /// Up to `count` messages in stream order, waiting up to `timeout` for the first; none when nothing is new.
    public func fetch(_ count: Int, timeout: Duration) throws(NATSError) -> [StoredMessage] {
        var list = natsMsgList()
        var code = jsErrCode(rawValue: 0)
        let status = natsSubscription_Fetch(&list, subscription, Int32(count), timeout.milliseconds, &code)
        defer { natsMsgList_Destroy(&list) }
        if status == NATS_TIMEOUT { return [] }
        try check("fetch from \(subject) of \(stream)", status, code)
        var out: [StoredMessage] = []
        out.reserveCapacity(Int(list.Count))
        for k in 0..<Int(list.Count) {
            guard let msg = list.Msgs[k] else { continue }
            var meta: UnsafeMutablePointer<jsMsgMetaData>?
            try check("metadata of a message from \(stream)", natsMsg_GetMetaData(&meta, msg))
            let sequence = meta!.pointee.Sequence.Stream
            jsMsgMetaData_Destroy(meta)
            out.append(NATSConnection.stored(msg, sequence: sequence))
        }
        return out
    }
}
