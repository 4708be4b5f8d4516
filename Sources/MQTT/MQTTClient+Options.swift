extension MQTTClient {
    public enum ProtocolVersion: Sendable, Hashable {
        case v311
        case v5
    }

    /// TLS settings (`mosquitto_tls_set`): the broker's certificate is verified against `caFile` or the certificates
    /// in `caDirectory` (at least one is required); `certificateFile` + `keyFile` authenticate the client.
    public struct TLS: Sendable, Hashable {
        public var caFile: String?
        public var caDirectory: String?
        public var certificateFile: String?
        public var keyFile: String?
        /// Skips the check that the certificate names the host (the chain is still verified). For tests only.
        public var insecure: Bool

        public init(caFile: String? = nil, caDirectory: String? = nil, certificateFile: String? = nil,
                    keyFile: String? = nil, insecure: Bool = false) {
            self.caFile = caFile
            self.caDirectory = caDirectory
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.insecure = insecure
        }
    }

    public struct Options: Sendable, Hashable {
        public var host: String
        public var port: Int
        /// nil: a random identifier (only with `cleanSession`).
        public var clientID: String?
        public var cleanSession: Bool
        /// 5 s to 18 h (libmosquitto's range).
        public var keepAlive: Duration
        public var protocolVersion: ProtocolVersion
        public var username: String?
        public var password: String?
        public var tls: TLS?
        /// The wait before the first reconnection attempt; it doubles after each failure up to `reconnectDelayMaximum`
        /// and starts again from here once a connection succeeds.
        public var reconnectDelayMinimum: Duration
        public var reconnectDelayMaximum: Duration
        /// How long a publish waits for a connection and then for every acknowledgement.
        public var publishTimeout: Duration
        /// QoS 1/2 messages sent before their PUBACKs arrive (MQTT 5 brokers may lower it); the rest queue in order.
        public var maximumInflight: Int

        public init(host: String, port: Int = 1883, clientID: String? = nil, cleanSession: Bool = true,
                    keepAlive: Duration = .seconds(30), protocolVersion: ProtocolVersion = .v311,
                    username: String? = nil, password: String? = nil, tls: TLS? = nil,
                    reconnectDelayMinimum: Duration = .milliseconds(250), reconnectDelayMaximum: Duration = .seconds(30),
                    publishTimeout: Duration = .seconds(10), maximumInflight: Int = 100) {
            self.host = host
            self.port = port
            self.clientID = clientID
            self.cleanSession = cleanSession
            self.keepAlive = keepAlive
            self.protocolVersion = protocolVersion
            self.username = username
            self.password = password
            self.tls = tls
            self.reconnectDelayMinimum = reconnectDelayMinimum
            self.reconnectDelayMaximum = reconnectDelayMaximum
            self.publishTimeout = publishTimeout
            self.maximumInflight = maximumInflight
        }

        /// The delay before reconnection attempt `failures` (1 for the first): exponential, capped.
        func reconnectDelay(afterFailures failures: Int) -> Duration {
            var delay = reconnectDelayMinimum
            for _ in 1..<max(1, min(failures, 40)) where delay < reconnectDelayMaximum { delay *= 2 }
            return min(delay, reconnectDelayMaximum)
        }
    }
}
