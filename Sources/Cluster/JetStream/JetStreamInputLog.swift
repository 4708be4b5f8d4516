import NATS

/// `InputLog` over JetStream: a stream per input partition (device placed by FNV-1a, as nats-server's subject
/// mapping computes it), and the requests stream.
struct JetStreamInputLog: InputLog {
    let connection: NATSConnection
    let names: ClusterNames
    let partitions: Int

    func placement(of device: String) -> (partition: Int, key: String?) { (Partitioning.partition(of: device, count: partitions), nil) }

    func append(_ messages: [LogAppend]) async throws(ClusterError) {
        let connection = self.connection, names = self.names
        // The parts go out together; each waits for its own acknowledgement.
        let failures = await withTaskGroup(of: NATSError?.self) { group in
            for m in messages {
                group.addTask {
                    await NATSConnection.blockingFailure { () throws(NATSError) in
                        _ = try connection.publish(subject: names.inputSubject(m.partition), data: m.data)
                    }
                }
            }
            var failures: [NATSError] = []
            for await f in group { if let f { failures.append(f) } }
            return failures
        }
        if let first = failures.first {
            throw .unavailable("JetStream did not store \(failures.count) of \(messages.count) partition batches: \(first)")
        }
    }

    func appendRequest(_ data: [UInt8]) async throws(ClusterError) -> UInt64 {
        let connection = self.connection, subject = names.requestsSubject
        do {
            return try await NATSConnection.blocking { () throws(NATSError) in try connection.publish(subject: subject, data: data).sequence }
        } catch {
            throw .unavailable("JetStream did not store the request change: \(error)")
        }
    }

    var failureReason: String? {
        connection.isConnected ? nil : "not connected to JetStream (\(connection.servers.joined(separator: ",")))"
    }
}
