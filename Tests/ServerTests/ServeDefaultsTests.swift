import Server
import TriggerEngine
import Testing

/// Every default `serve --help-all` prints (and docs/service.md's table repeats) is the one the service runs with:
/// each setting's printed default against the configuration resolved from no flag, variable or file.
@Suite struct ServeDefaultsTests {
    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// `60.0` → `60`, `0.5` → `0.5`.
    static func text(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x) }

    @Test func everyPrintedDefaultIsTheRealOne() async throws {
        let r = try await ServeSettings.resolve(flags: [:], environment: [:], configFile: nil)
        let c = r.configuration
        // The real default of each setting, as text; nil: unset by default.
        let real: [String: String?] = [
            "database": c.databasePath,
            "regions": c.regionsFilePath,
            "regionsIdProperty": c.regionsGeoJSON.idProperty,
            "listen": "\(c.host):\(c.port)",
            "journal": c.effectiveJournalPath == c.databasePath + ".journal" && c.journalPath == nil ? "DATABASE.journal" : c.effectiveJournalPath,
            "cluster.instance": c.clusterInstance ?? "HOSTNAME-PID",
            "cluster.partitions": String(c.clusterPartitions),
            "cluster.replicas": String(c.clusterReplicas),
            "cluster.leaseTTL": Self.text(c.clusterLeaseTTL),
            "cluster.sessionTimeout": Self.text(c.clusterSessionTimeout),
            "journal.segmentBytes": String(c.journalSegmentBytes),
            "journal.sync": c.journalSync.description,
            "checkpoint.interval": Self.text(c.checkpointInterval),
            "checkpoint.records": String(c.checkpointRecords),
            "checkpoint.inputs": String(c.checkpointInputs),
            "sink": c.sinks.isEmpty ? nil : "\(c.sinks)",
            "input": c.inputs.isEmpty ? nil : "\(c.inputs)",
            "bluetooth": r.bluetoothAdapter,
            "bluetoothBackend": r.bluetoothBackend,
            "token": c.token,
            "tokenFile": c.token,
            "maxBodyBytes": String(c.maximumBodyBytes),
            "http.corsOrigin": c.corsOrigins.first,
            "http.headerTimeout": Self.text(Self.seconds(c.connections.headerTimeout)),
            "http.bodyTimeout": Self.text(Self.seconds(c.connections.bodyTimeout)),
            "http.idleTimeout": Self.text(Self.seconds(c.connections.idleTimeout)),
            "http.maxConnections": String(c.connections.maximumConnections),
            "http.maxConnectionsPerAddress": String(c.connections.maximumConnectionsPerAddress),
            "http.drainTimeout": Self.text(Self.seconds(c.connections.drainTimeout)),
            "http.eventLoops": "\(c.connections.eventLoopCount(tls: false)) (one per core with TLS)",
            "tls.certificate": c.tlsCertificatePath,
            "tls.key": c.tlsKeyPath,
            "clock": c.clock.rawValue,
            "allowedLateness": Self.text(c.allowedLateness),
            "maxFuture": c.engineConfiguration.maximumFuture.map { Self.text($0) } ?? "0",
            "deviceRetention": c.deviceRetention.map { Self.text($0) },
            "deviceRetentionExits": c.deviceRetentionExits ? "exit" : "none",
            "explainDepth": String(c.engineConfiguration.explainDepth),
            "console": c.console ? "on" : "off",
            "console.tiles": c.consoleTiles,
            "console.tilesAttribution": c.consoleTilesAttribution,
            "logLevel": r.logLevel.rawValue,
            "logFormat": r.logFormat.rawValue,
            "webhook.batch": String(c.delivery.webhook.batch),
            "webhook.secretFile": c.delivery.webhook.secret.map { _ in "set" },
            "webhook.signatureHeader": c.delivery.webhook.signatureHeader,
            "webhook.timeout": Self.text(Self.seconds(c.delivery.webhook.timeout)),
            "webhook.concurrency": String(c.delivery.webhook.concurrency),
            "retry.initial": Self.text(Self.seconds(c.delivery.retry.initial)),
            "retry.maximum": Self.text(Self.seconds(c.delivery.retry.maximum)),
            "outbox.maxEntries": String(c.delivery.maximumEntries),
            "outbox.maxAge": Self.text(Self.seconds(c.delivery.maximumAge)),
            "ndjson.rotateBytes": String(c.delivery.ndjson.rotateBytes),
            "ndjson.keep": String(c.delivery.ndjson.keep),
            "ndjson.linger": Self.text(Self.seconds(c.delivery.ndjson.linger)),
        ]
        for setting in ServeSettings.all {
            // A new setting needs its line above: its default is then checked too.
            guard let value = real[setting.key] else {
                Issue.record("no real default known for \(setting.key)")
                continue
            }
            #expect(setting.defaultValue == value, "\(setting.key): prints \(setting.defaultValue ?? "none"), runs with \(value ?? "none")")
        }
        // The same bound with --clock event (ahead of the watermark and of the device's own newest input).
        let event = try await ServeSettings.resolve(flags: ["clock": .string("event")], environment: [:], configFile: nil)
        #expect(event.configuration.engineConfiguration.maximumFuture == 600)
    }
}
