import CNATS
#if canImport(Glibc)
import Glibc
#endif

extension NATSConnection {
    /// Creates the stream when absent (file storage, limits retention). An existing stream is left as it is: its
    /// settings are the deployment's, and an update at every start would need the stream's leader each time.
    public func ensureStream(_ settings: StreamSettings) throws(NATSError) {
        var existing: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let found = js_GetStreamInfo(&existing, jetStream, settings.name, nil, &code)
        jsStreamInfo_Destroy(existing)
        if found == NATS_OK { return }
        guard found == NATS_NOT_FOUND || code == JSStreamNotFoundErr else { throw NATSError("stream info of \(settings.name)", status: found, code: code) }
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        let name = strdup(settings.name)
        var subjects = settings.subjects.map { UnsafePointer(strdup($0)) }
        defer { free(name); subjects.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        config.Name = UnsafePointer(name)
        config.Storage = js_FileStorage
        config.Replicas = Int64(settings.replicas)
        config.Duplicates = settings.duplicateWindow.components.seconds * 1_000_000_000
        config.MaxMsgsPerSubject = settings.maximumPerSubject == 0 ? -1 : settings.maximumPerSubject
        config.MaxMsgSize = settings.maximumMessageBytes == 0 ? -1 : settings.maximumMessageBytes
        code = jsErrCode(rawValue: 0)
        let status = subjects.withUnsafeMutableBufferPointer { b -> natsStatus in
            config.Subjects = b.baseAddress
            config.SubjectsLen = Int32(b.count)
            var info: UnsafeMutablePointer<jsStreamInfo>?
            let s = js_AddStream(&info, jetStream, &config, nil, &code)
            jsStreamInfo_Destroy(info)
            return s
        }
        // Another instance starting at the same time may have created it first.
        if status != NATS_OK, code == JSStreamNameExistErr { return }
        try check("create stream \(settings.name)", status, code)
    }

    /// Publishes to a stream and returns its sequence once the stream stored it (on a replicated stream: once a
    /// quorum did). With `messageId`, a repeat within the stream's duplicate window is not stored again and
    /// returns the first one's sequence with `duplicate` set.
    @discardableResult
    public func publish(subject: String, data: UnsafeRawBufferPointer, messageId: String? = nil,
                        expectedLastSubjectSequence: UInt64? = nil) throws(NATSError) -> (sequence: UInt64, duplicate: Bool) {
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        let id: UnsafeMutablePointer<CChar>? = messageId.flatMap { strdup($0) }
        defer { free(id) }
        options.MsgId = id.map { UnsafePointer($0) }
        if let e = expectedLastSubjectSequence {
            if e == 0 { options.ExpectNoMessage = true } else { options.ExpectLastSubjectSeq = e }
        }
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        let status = js_Publish(&ack, jetStream, subject, data.baseAddress, Int32(data.count), &options, &code)
        guard status == NATS_OK else { throw NATSError("publish to \(subject)", status: status, code: code) }
        defer { jsPubAck_Destroy(ack) }
        return (ack!.pointee.Sequence, ack!.pointee.Duplicate)
    }

    @discardableResult
    public func publish(subject: String, data: [UInt8], messageId: String? = nil,
                        expectedLastSubjectSequence: UInt64? = nil) throws(NATSError) -> (sequence: UInt64, duplicate: Bool) {
        let result: Result<(sequence: UInt64, duplicate: Bool), NATSError> = data.withUnsafeBytes { b in
            Result { () throws(NATSError) in
                try publish(subject: subject, data: b, messageId: messageId, expectedLastSubjectSequence: expectedLastSubjectSequence)
            }
        }
        return try result.get()
    }

    /// Queues a publish without waiting for its acknowledgement (nats.c keeps up to 4,096 in flight);
    /// `waitForAsyncPublishes` says which since the last wait were stored. `messageId` (`Nats-Msg-Id`) must be unique
    /// within the stream's duplicate window unless the message is meant as a repeat: it is how the answer is matched.
    public func publishAsync(subject: String, data: UnsafeRawBufferPointer, messageId: String) throws(NATSError) {
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        let id = strdup(messageId)
        defer { free(id) }
        options.MsgId = UnsafePointer(id)
        try check("publish to \(subject)", js_PublishAsync(jetStream, subject, data.baseAddress, Int32(data.count), &options))
        acknowledgements.published(messageId)
    }

    /// Waits until every asynchronous publish is answered; then says which of those since the last wait were not
    /// acknowledged (0 missing: all stored). `.timeout` when some are still unanswered after `timeout`: that round is
    /// given up (its caller fails it) and answers that come later are ignored. One caller at a time per connection.
    public func waitForAsyncPublishes(timeout: Duration) throws(NATSError) -> AsyncPublishOutcome {
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = timeout.milliseconds
        let status = js_PublishAsyncComplete(jetStream, &options)
        let outcome = acknowledgements.settle()
        try check("wait for asynchronous publishes", status)
        return outcome
    }

    /// Forgets the publishes since the last wait (a round that failed before its wait): their answers are ignored.
    public func abandonAsyncPublishes() {
        _ = acknowledgements.settle()
    }

    /// The message at `sequence` of `stream`; `.notFound` when there is none (deleted, purged or not yet written).
    public func message(stream: String, sequence: UInt64) throws(NATSError) -> StoredMessage {
        var msg: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        try check("get message \(sequence) of \(stream)", js_GetMsg(&msg, jetStream, stream, sequence, nil, &code), code)
        defer { natsMsg_Destroy(msg) }
        return Self.stored(msg!, sequence: sequence)
    }

    /// The newest message of `stream` on `subject`, or nil when the subject has none.
    public func lastMessage(stream: String, subject: String) throws(NATSError) -> StoredMessage? {
        var msg: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let status = js_GetLastMsg(&msg, jetStream, stream, subject, nil, &code)
        if status == NATS_NOT_FOUND || code == JSNoMessageFoundErr { return nil }
        try check("get the last message on \(subject) of \(stream)", status, code)
        defer { natsMsg_Destroy(msg) }
        return Self.stored(msg!, sequence: natsMsg_GetSequence(msg))
    }

    /// Removes `subject`'s messages from `stream`, all but the newest `keep`.
    public func purge(stream: String, subject: String, keep: UInt64) throws(NATSError) {
        var options = jsOptions()
        jsOptions_Init(&options)
        let s = strdup(subject)
        defer { free(s) }
        options.Stream.Purge.Subject = UnsafePointer(s)
        options.Stream.Purge.Keep = keep
        var code = jsErrCode(rawValue: 0)
        try check("purge \(subject) of \(stream) but the newest \(keep)", js_PurgeStream(jetStream, stream, &options, &code), code)
    }

    /// The names of `stream`'s consumers (an operator's view; the tests remove them as a server loss would).
    public func consumerNames(stream: String) throws(NATSError) -> [String] {
        var list: UnsafeMutablePointer<jsConsumerNamesList>?
        var code = jsErrCode(rawValue: 0)
        let status = js_ConsumerNames(&list, jetStream, stream, nil, &code)
        if status == NATS_NOT_FOUND { return [] }
        try check("consumer names of \(stream)", status, code)
        defer { jsConsumerNamesList_Destroy(list) }
        return (0..<Int(list!.pointee.Count)).compactMap { list!.pointee.List[$0].map { String(cString: $0) } }
    }

    /// The name of the server hosting `consumer` of `stream` (nil when the server does not say).
    public func consumerLeader(stream: String, consumer: String) throws(NATSError) -> String? {
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(rawValue: 0)
        try check("consumer info of \(consumer) of \(stream)", js_GetConsumerInfo(&info, jetStream, stream, consumer, nil, &code), code)
        defer { jsConsumerInfo_Destroy(info) }
        return info!.pointee.Cluster?.pointee.Leader.map { String(cString: $0) }
    }

    /// Deletes `consumer` of `stream`.
    public func deleteConsumer(stream: String, consumer: String) throws(NATSError) {
        var code = jsErrCode(rawValue: 0)
        try check("delete consumer \(consumer) of \(stream)", js_DeleteConsumer(jetStream, stream, consumer, nil, &code), code)
    }

    /// The sequence of the newest message in `stream` (0 when it is empty).
    public func lastSequence(stream: String) throws(NATSError) -> UInt64 {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        try check("stream info of \(stream)", js_GetStreamInfo(&info, jetStream, stream, nil, &code), code)
        defer { jsStreamInfo_Destroy(info) }
        return info!.pointee.State.LastSeq
    }

    /// The name of the server leading `stream`'s replicas (nil for a stream that is not clustered).
    public func streamLeader(stream: String) throws(NATSError) -> String? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        try check("stream info of \(stream)", js_GetStreamInfo(&info, jetStream, stream, nil, &code), code)
        defer { jsStreamInfo_Destroy(info) }
        return info!.pointee.Cluster?.pointee.Leader.map { String(cString: $0) }
    }

    /// Every message of `stream` on `subject` from `sequence`, in order, until none arrives within `idle` (a reader of
    /// a whole stream: the cluster tests).
    public func messages(stream: String, subject: String, from sequence: UInt64 = 1, idle: Duration = .seconds(1)) throws(NATSError) -> [StoredMessage] {
        let consumer = try PullConsumer(connection: self, stream: stream, subject: subject, from: sequence)
        var out: [StoredMessage] = []
        while true {
            let batch = try consumer.fetch(1024, timeout: idle)
            if batch.isEmpty { return out }
            out += batch
        }
    }

    static func stored(_ msg: OpaquePointer, sequence: UInt64) -> StoredMessage {
        let count = Int(natsMsg_GetDataLength(msg))
        var data = [UInt8](repeating: 0, count: count)
        if count > 0, let p = natsMsg_GetData(msg) {
            data.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: count)) }
        }
        var id: UnsafePointer<CChar>?
        let messageId = natsMsgHeader_Get(msg, "Nats-Msg-Id", &id) == NATS_OK ? id.map { String(cString: $0) } : nil
        return StoredMessage(sequence: sequence, subject: String(cString: natsMsg_GetSubject(msg)), data: data, messageId: messageId)
    }
}
