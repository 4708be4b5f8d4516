import CNATS
#if canImport(Glibc)
import Glibc
#endif

/// A JetStream key-value bucket: values with revisions, compare-and-set writes, and an optional time to live after
/// which a value not written again is gone (what leases are made of).
public final class KeyValueBucket: @unchecked Sendable {
    private let store: OpaquePointer
    public let name: String
    private let connection: NATSConnection

    /// Binds to the bucket, creating it when absent.
    public init(connection: NATSConnection, name: String, replicas: Int, ttl: Duration? = nil, history: UInt8 = 1) throws(NATSError) {
        self.name = name
        self.connection = connection
        var kv: OpaquePointer?
        var config = kvConfig()
        kvConfig_Init(&config)
        let n = strdup(name)
        defer { free(n) }
        config.Bucket = UnsafePointer(n)
        config.Replicas = Int32(replicas)
        config.History = history
        config.StorageType = js_FileStorage
        if let ttl { config.TTL = ttl.milliseconds * 1_000_000 }
        var status = js_CreateKeyValue(&kv, connection.jetStream, &config)
        if status != NATS_OK { status = js_KeyValue(&kv, connection.jetStream, name) }
        try check("key-value bucket \(name)", status)
        store = kv!
    }

    deinit { kvStore_Destroy(store) }

    /// The value and its revision, or nil when the key is absent, deleted or expired.
    public func get(_ key: String) throws(NATSError) -> (value: [UInt8], revision: UInt64)? {
        var entry: OpaquePointer?
        let status = kvStore_Get(&entry, store, key)
        if status == NATS_NOT_FOUND { return nil }
        try check("get \(key) from \(name)", status)
        defer { kvEntry_Destroy(entry) }
        let count = Int(kvEntry_ValueLen(entry))
        var value = [UInt8](repeating: 0, count: count)
        if count > 0, let p = kvEntry_Value(entry) {
            value.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: count)) }
        }
        return (value, kvEntry_Revision(entry))
    }

    /// Writes the key only if it is absent (or deleted, or expired); `.conflict` when someone holds it.
    public func create(_ key: String, value: [UInt8]) throws(NATSError) -> UInt64 {
        var revision: UInt64 = 0
        let status = value.withUnsafeBytes { kvStore_Create(&revision, store, key, $0.baseAddress, Int32($0.count)) }
        try classify("create \(key) in \(name)", status)
        return revision
    }

    /// Writes the key only if its newest revision is `revision`; `.conflict` when it moved on.
    public func update(_ key: String, value: [UInt8], revision: UInt64) throws(NATSError) -> UInt64 {
        var next: UInt64 = 0
        let status = value.withUnsafeBytes { kvStore_Update(&next, store, key, $0.baseAddress, Int32($0.count), revision) }
        try classify("update \(key) in \(name) at revision \(revision)", status)
        return next
    }

    /// Writes the key whatever it holds.
    @discardableResult
    public func put(_ key: String, value: [UInt8]) throws(NATSError) -> UInt64 {
        var revision: UInt64 = 0
        try check("put \(key) in \(name)", value.withUnsafeBytes { kvStore_Put(&revision, store, key, $0.baseAddress, Int32($0.count)) })
        return revision
    }

    public func delete(_ key: String) throws(NATSError) {
        try check("delete \(key) from \(name)", kvStore_Delete(store, key))
    }

    /// Deletes the key only if `revision` is still its newest (a delete marker written with the stream's
    /// expected-last-subject-sequence check, as the Go client's `Delete(key, LastRevision)`); `.conflict` when
    /// someone wrote it since.
    public func delete(_ key: String, revision: UInt64) throws(NATSError) {
        var msg: OpaquePointer?
        try check("delete \(key) from \(name)", natsMsg_Create(&msg, "$KV.\(name).\(key)", nil, nil, 0))
        defer { natsMsg_Destroy(msg) }
        try check("delete \(key) from \(name)", natsMsgHeader_Set(msg, "KV-Operation", "DEL"))
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.ExpectLastSubjectSeq = revision
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        let status = js_PublishMsg(&ack, connection.jetStream, msg, &options, &code)
        if let ack { jsPubAck_Destroy(ack) }
        try check("delete \(key) from \(name) at revision \(revision)", status, code)
    }

    /// The keys that hold a value now. `timeout` bounds gathering them all (`.timeout` and no keys when it
    /// passes); without one, the connection's `apiWait`.
    public func keys(timeout: Duration? = nil) throws(NATSError) -> [String] {
        var list = kvKeysList()
        var options = kvWatchOptions()
        kvWatchOptions_Init(&options)
        options.IgnoreDeletes = true
        if let timeout { options.Timeout = max(1, timeout.milliseconds) }
        let status = kvStore_Keys(&list, store, &options)
        if status == NATS_NOT_FOUND { return [] }
        try check("keys of \(name)", status)
        defer { kvKeysList_Destroy(&list) }
        return (0..<Int(list.Count)).compactMap { list.Keys[$0].map { String(cString: $0) } }
    }

    /// A compare-and-set refused by the server is a conflict, not a failure of the cluster: nats.c reports it as a
    /// plain error whose text names the wrong sequence.
    private func classify(_ operation: @autoclosure () -> String, _ status: natsStatus) throws(NATSError) {
        guard status != NATS_OK else { return }
        let error = NATSError(operation(), status: status)
        if error.detail.lowercased().contains("wrong last sequence") || error.detail.contains("10071") {
            throw NATSError(operation(), kind: .conflict, detail: error.detail)
        }
        throw error
    }
}
