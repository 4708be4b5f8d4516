import Configuration
import Foundation
import Server
import TestSupport
import Testing

/// `serve`'s settings: flags over environment over file over defaults, and errors that name the flag, variable or
/// file key at fault.
@Suite struct ServeSettingsTests {
    let directory: URL

    init() throws {
        directory = try TestFolders.make("settings-tests")
    }

    func file(_ text: String, name: String = "serve.json") throws -> String {
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func error(flags: [String: ServeSettings.FlagValue] = [:], environment: [String: String] = [:], configFile: String? = nil) async -> String {
        do {
            _ = try await ServeSettings.resolve(flags: flags, environment: environment, configFile: configFile)
            return "no error"
        } catch {
            return error.reason
        }
    }

    @Test func timeSettingsReachTheEngine() async throws {
        let defaults = try await ServeSettings.resolve(flags: [:], environment: [:], configFile: nil).configuration.engineConfiguration
        #expect(defaults.allowedLateness == 60 && defaults.maximumFuture == 600)
        let event = try await ServeSettings.resolve(flags: ["clock": .string("event")], environment: [:], configFile: nil)
        // Ten minutes for event time too: a service's input flows, and one client must not jump the clock a year.
        #expect(event.configuration.engineConfiguration.maximumFuture == 600)
        let set = try await ServeSettings.resolve(flags: ["allowedLateness": .number(5)],
                                                  environment: ["GEOTRIGGER_MAX_FUTURE": "0"], configFile: nil)
        #expect(set.configuration.engineConfiguration.allowedLateness == 5)
        #expect(set.configuration.engineConfiguration.maximumFuture == nil)
        #expect(await error(flags: ["allowedLateness": .number(-1)]).contains("allowedLateness must be a number of seconds ≥ 0"))
    }

    /// `deviceRetention` is a DURATION (seconds, or with s, m, h, d) and reaches the engine with its exit choice.
    @Test func deviceRetentionTakesADurationAndAnExitChoice() async throws {
        let defaults = try await ServeSettings.resolve(flags: [:], environment: [:], configFile: nil).configuration.engineConfiguration
        #expect(defaults.idleDeviceExpiry == nil && !defaults.expiryExits)
        let flag = try await ServeSettings.resolve(flags: ["deviceRetention": .string("30d")], environment: [:], configFile: nil)
        #expect(flag.configuration.engineConfiguration.idleDeviceExpiry == 2_592_000)
        let environment = try await ServeSettings.resolve(
            flags: [:], environment: ["GEOTRIGGER_DEVICE_RETENTION": "90m", "GEOTRIGGER_DEVICE_RETENTION_EXITS": "exit"], configFile: nil)
        #expect(environment.configuration.engineConfiguration.idleDeviceExpiry == 5400)
        #expect(environment.configuration.engineConfiguration.expiryExits)
        let path = try file(#"{"deviceRetention": "3600", "deviceRetentionExits": "none"}"#)
        let fromFile = try await ServeSettings.resolve(flags: [:], environment: [:], configFile: path)
        #expect(fromFile.configuration.engineConfiguration.idleDeviceExpiry == 3600)
        #expect(await error(flags: ["deviceRetention": .string("3x")]).contains("deviceRetention must be a duration"))
        #expect(await error(flags: ["deviceRetention": .string("0")]).contains("at least 1 second"))
        #expect(await error(environment: ["GEOTRIGGER_DEVICE_RETENTION_EXITS": "loud"]).contains("none or exit"))
    }

    @Test func defaultsApplyWithNothingSet() async throws {
        let r = try await ServeSettings.resolve(flags: [:], environment: [:], configFile: nil)
        #expect(r.configuration.databasePath == "./geotrigger.sqlite")
        #expect(r.configuration.host == "127.0.0.1" && r.configuration.port == 8080)
        #expect(r.configuration.maximumBodyBytes == 16 << 20)
        #expect(r.configuration.clock == .wall && r.configuration.sinks.isEmpty && r.configuration.inputs.isEmpty)
        #expect(r.logLevel == .info && r.bluetoothAdapter == nil)
        #expect(r.origins.isEmpty)
    }

    /// `http.eventLoops`: one loop by default, one per core with TLS, any count from 1 to 256 when set.
    @Test func eventLoopsDefaultToOneAndFollowTheSetting() async throws {
        let defaults = try await ServeSettings.resolve(flags: [:], environment: [:], configFile: nil).configuration.connections
        #expect(defaults.eventLoops == nil)
        #expect(defaults.eventLoopCount(tls: false) == 1)
        #expect(defaults.eventLoopCount(tls: true) == ProcessInfo.processInfo.activeProcessorCount)
        let flag = try await ServeSettings.resolve(flags: ["http.eventLoops": .integer(3)], environment: [:], configFile: nil)
        #expect(flag.configuration.connections.eventLoopCount(tls: true) == 3)
        let environment = try await ServeSettings.resolve(flags: [:], environment: ["GEOTRIGGER_HTTP_EVENT_LOOPS": "2"], configFile: nil)
        #expect(environment.configuration.connections.eventLoopCount(tls: false) == 2)
        #expect(await error(environment: ["GEOTRIGGER_HTTP_EVENT_LOOPS": "0"]).contains("http.eventLoops must be 1 to 256, got 0"))
    }

    @Test func flagsBeatEnvironmentBeatsFileBeatsDefault() async throws {
        let config = try file("""
            {"listen": "127.0.0.1:7001", "database": "file.sqlite", "maxBodyBytes": 1000, "clock": "event",
             "sink": ["ndjson:file.ndjson"], "tls": {"certificate": "c.pem", "key": "k.pem"}}
            """)
        let environment = ["GEOTRIGGER_LISTEN": "127.0.0.1:7002", "GEOTRIGGER_DATABASE": "env.sqlite",
                           "GEOTRIGGER_INPUT": "stdin,sightings:tcp:127.0.0.1:9000", "UNRELATED": "x"]
        let r = try await ServeSettings.resolve(flags: ["listen": .string("127.0.0.1:7003")], environment: environment,
                                                configFile: config)
        let c = r.configuration
        #expect(c.port == 7003)                      // flag
        #expect(r.origins["listen"] == "flag --listen")
        #expect(c.databasePath == "env.sqlite")      // environment over file
        #expect(r.origins["database"] == "environment GEOTRIGGER_DATABASE")
        #expect(c.inputs == [.stdin(.fixes), .tcp(host: "127.0.0.1", port: 9000, .sightings)])
        #expect(c.maximumBodyBytes == 1000)          // file
        #expect(r.origins["maxBodyBytes"] == "file \(config) key maxBodyBytes")
        #expect(c.clock == .event)
        #expect(c.sinks == [.ndjson(path: "file.ndjson")])
        #expect(c.tlsCertificatePath == "c.pem" && c.tlsKeyPath == "k.pem")   // nested keys
        #expect(r.logLevel == .info)                 // default
    }

    @Test func configFileComesFromTheEnvironmentWhenNoFlagNamesOne() async throws {
        let config = try file(#"{"logLevel": "debug"}"#)
        let r = try await ServeSettings.resolve(flags: [:], environment: ["GEOTRIGGER_CONFIG": config], configFile: nil)
        #expect(r.logLevel == .debug)
    }

    @Test func environmentNamesMatchSwiftConfiguration() throws {
        for setting in ServeSettings.all {
            let provider = EnvironmentVariablesProvider(environmentVariables: [:]).prefixKeys(with: "geotrigger")
            let encoded = try provider.value(forKey: AbsoluteConfigKey(ConfigKey(setting.key)), type: .string).encodedKey
            #expect(encoded == setting.environmentVariable, "\(setting.key)")
        }
    }

    @Test func tokenComesFromTheEnvironmentOrTheTokenFile() async throws {
        let r = try await ServeSettings.resolve(flags: ["listen": .string("0.0.0.0:8080")], environment: ["GEOTRIGGER_TOKEN": "s3cret"], configFile: nil)
        #expect(r.configuration.token == "s3cret")
        let tokenFile = try file("from-file\n", name: "token")
        let f = try await ServeSettings.resolve(flags: ["tokenFile": .string(tokenFile)], environment: ["GEOTRIGGER_TOKEN": "s3cret"], configFile: nil)
        #expect(f.configuration.token == "from-file")
        #expect(await error(flags: ["listen": .string("0.0.0.0:8080")]).contains("needs a bearer token"))
    }

    @Test func badValuesAreReportedWithTheirSource() async throws {
        #expect(await error(environment: ["GEOTRIGGER_MAX_BODY_BYTES": "lots"])
            .hasPrefix("environment GEOTRIGGER_MAX_BODY_BYTES: maxBodyBytes must be an integer"))
        let config = try file(#"{"listen": "nowhere"}"#)
        #expect(await error(configFile: config) == "file \(config) key listen: expected HOST:PORT or [IPv6]:PORT with a port 0…65535, got 'nowhere'")
        #expect(await error(flags: ["clock": .string("lunar")]) == "flag --clock: unknown clock 'lunar': use wall or event")
        #expect(await error(flags: ["input": .strings(["udp:1"])]).hasPrefix("flag --input: unknown input udp:1"))
        #expect(await error(flags: ["input": .strings(["tcp:0.0.0.0:9000"])]).contains("must listen on a loopback address"))
        #expect(await error(flags: ["tls.certificate": .string("c.pem")]).contains("both a certificate (--tls-certificate) and a key"))
        let typed = try file(#"{"maxBodyBytes": "big"}"#)
        #expect(await error(configFile: typed).hasPrefix("file \(typed) key maxBodyBytes: maxBodyBytes must be an integer"))
    }

    /// `--journal kafka://…` selects the Kafka path with its own checks: brokers as HOST:PORT, a session timeout,
    /// any replication factor (JetStream's replicas must be 1, 3 or 5).
    @Test func kafkaJournalSettings() async throws {
        let kafka = try await ServeSettings.resolve(
            flags: ["journal": .string("kafka://k1:9092,k2:9092"), "cluster.sessionTimeout": .number(4), "cluster.replicas": .integer(2)],
            environment: [:], configFile: nil).configuration
        #expect(kafka.clusterLog?.transport == .kafka && kafka.clusterLog?.servers == ["k1:9092", "k2:9092"])
        #expect(kafka.clusterSessionTimeout == 4 && kafka.clusterReplicas == 2)
        #expect(try await ServeSettings.resolve(flags: ["journal": .string("nats://n:4222")], environment: [:], configFile: nil)
            .configuration.clusterLog?.transport == .jetStream)
        #expect(await error(flags: ["journal": .string("kafka://k1")]) == "flag --journal: expected kafka://HOST:PORT[,HOST:PORT…], got 'kafka://k1'")
        #expect(await error(flags: ["journal": .string("kafka://k:9092"), "cluster.sessionTimeout": .number(0.5)])
            .contains("must be at least 1 second"))
        #expect(await error(flags: ["journal": .string("nats://n:4222"), "cluster.replicas": .integer(2)]).contains("must be 1, 3 or 5"))
    }

    @Test func badFilesAreReportedPrecisely() async throws {
        let missing = directory.appendingPathComponent("missing.json").path
        #expect(await error(configFile: missing) == "configuration file \(missing): \(missing) does not exist")
        let broken = try file(#"{"listen": "127.0.0.1:1",}"#)
        #expect(await error(configFile: broken).hasPrefix("configuration file \(broken) is not valid JSON"))
        let typo = try file(#"{"lisen": "127.0.0.1:1"}"#)
        #expect(await error(configFile: typo).hasPrefix("configuration file \(typo): unknown setting 'lisen' (known: database, regions, listen"))
        let nestedTypo = try file(#"{"tls": {"cert": "c.pem"}}"#)
        #expect(await error(configFile: nestedTypo).hasPrefix("configuration file \(nestedTypo): unknown setting 'tls.cert'"))
        let array = try file("[1]")
        #expect(await error(configFile: array) == "configuration file \(array): expected a JSON object of settings, found an array")
    }

    @Test func deliverySettingsComeFromEveryLayer() async throws {
        let secret = try file("  s3cret\n", name: "secret")
        let config = try file("""
            {"retry": {"initial": 1, "maximum": 30.5}, "webhook": {"batch": 20, "secretFile": "\(secret)"},
             "outbox": {"maxEntries": 500}, "ndjson": {"rotateBytes": 4096, "keep": 3, "linger": 0.0125}}
            """)
        let r = try await ServeSettings.resolve(
            flags: ["webhook.concurrency": .integer(2), "outbox.maxAge": .number(60)],
            environment: ["GEOTRIGGER_RETRY_MAXIMUM": "45", "GEOTRIGGER_WEBHOOK_TIMEOUT": "2.5"], configFile: config)
        let d = r.configuration.delivery
        #expect(d.retry.initial == .seconds(1))             // file, an integer where a number is expected
        #expect(d.retry.maximum == .seconds(45))            // environment over file
        #expect(d.webhook.timeout == .milliseconds(2500))
        #expect(d.webhook.batch == 20 && d.webhook.concurrency == 2)
        #expect(d.webhook.secret == Array("s3cret".utf8))   // whitespace trimmed
        #expect(d.maximumEntries == 500 && d.maximumAge == .seconds(60))
        #expect(d.ndjson.rotateBytes == 4096 && d.ndjson.keep == 3)
        #expect(d.ndjson.linger == .microseconds(12_500))
        #expect(r.origins["webhook.concurrency"] == "flag --webhook-concurrency")
    }

    @Test func badDeliverySettingsNameTheirSource() async throws {
        #expect(await error(environment: ["GEOTRIGGER_RETRY_INITIAL": "soon"]).contains("environment GEOTRIGGER_RETRY_INITIAL"))
        #expect(await error(flags: ["webhook.timeout": .number(-1)]).contains("webhook.timeout must be a positive number of seconds"))
        #expect(await error(flags: ["ndjson.linger": .number(-0.001)]).contains("ndjson.linger must be a non-negative number of seconds"))
        #expect(await error(environment: ["GEOTRIGGER_NDJSON_LINGER": "2"]).contains("NDJSON linger must be between 0 and 1 second"))
        #expect(await error(flags: ["webhook.batch": .integer(0)]).contains("batch size must be at least 1"))
        let missing = directory.appendingPathComponent("no-such-secret").path
        #expect(await error(flags: ["webhook.secretFile": .string(missing)]).contains("cannot read the webhook secret file"))
        #expect(await error(flags: ["sink": .strings(["kafka:x"])]).contains("unknown sink 'kafka:x'"))
    }
}
