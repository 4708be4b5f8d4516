// swift-tools-version: 6.1
// GeoTrigger — geofence and Bluetooth-beacon trigger engine. GPL-2.0-or-later.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "geotrigger",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "geotrigger", targets: ["geotrigger"]),
        .executable(name: "geotrigger-serve", targets: ["geotrigger-serve"]),
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "TriggerEngine", targets: ["TriggerEngine"]),
        .library(name: "Geometry", targets: ["Geometry"]),
        .library(name: "Ingest", targets: ["Ingest"]),
        .library(name: "Beacons", targets: ["Beacons"]),
        .library(name: "MQTT", targets: ["MQTT"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Already resolved through Hummingbird; named for NIOHTTPTypes, the HTTP parts its channel pipeline carries.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.33.0"),
        // Already resolved through Hummingbird; named for the server tests, which build requests with HTTPTypes.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    ],
    targets: [
        // C shims: module map + header only.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CNATS", providers: [.apt(["libnats-dev"])]),
        .systemLibrary(name: "CKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        .target(name: "Geometry", dependencies: ["CGEOS"], swiftSettings: strict),
        // JSON reading (a byte parser with exact error positions) and writing, and the text checks beside it: numbers,
        // UTF-8, percent-escapes.
        .target(name: "JSON", swiftSettings: strict),
        // The one errno wrapper.
        .target(name: "SystemErrors", swiftSettings: strict),
        // The one parser of addresses the settings take (HOST:PORT, SCHEME://…), and resolving them.
        .target(name: "Endpoints", dependencies: ["JSON", .product(name: "NIOCore", package: "swift-nio")], swiftSettings: strict),
        .target(
            name: "TriggerEngine",
            dependencies: [
                "Geometry", "JSON", "CPrefetch",
                // The heap alone: the umbrella product builds every collection module.
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: strict),
        .target(name: "Ingest", dependencies: ["SystemErrors", "JSON", "TriggerEngine"], swiftSettings: strict),
        .target(
            name: "Beacons",
            dependencies: ["SystemErrors", "TriggerEngine", "CBluetooth", .product(name: "Metrics", package: "swift-metrics")],
            swiftSettings: strict),
        // Scanning through bluetoothd over D-Bus (the only code that touches sd-bus, `CSystemd`): Device1 signals to
        // advertisements for the Beacons pipeline, and the choice between it and raw HCI.
        .target(
            name: "BlueZDBus",
            dependencies: ["SystemErrors", 
                "Beacons", "TriggerEngine", "CSystemd",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict),
        // MQTT client over libmosquitto (the only code that touches it), topic templates and `mqtt://` sink specs.
        .target(name: "MQTT", dependencies: ["SystemErrors", "CMosquitto", "JSON", "Endpoints"], swiftSettings: strict),
        // NATS and JetStream over nats.c (the only code that touches it): streams, publishes with acknowledgements,
        // ordered reads, key-value buckets.
        // The one pool of threads for blocking C calls made from async code (NATS, Kafka).
        .target(name: "BlockingCalls", swiftSettings: strict),
        .target(name: "NATS", dependencies: ["CNATS", "BlockingCalls"], swiftSettings: strict),
        // Kafka over librdkafka (the only code that touches it): an idempotent producer, a consumer-group member with
        // rebalance callbacks and manual commits, partition readers, topic creation, murmur2 placement, and
        // librdkafka's mock cluster for the tests.
        .target(name: "Kafka", dependencies: ["CKafka"], swiftSettings: strict),
        // The append-only journal: framed, checksummed records in segment files, group-committed fsyncs; the host's
        // records (inputs and the notifications they fired) and their binary coding.
        // CRC-32C in C: the CPU's crc32 instruction (SSE 4.2) where it has one, slicing-by-8 tables elsewhere.
        .target(name: "CPrefetch"),
        // The executables' first call: glibc's malloc on transparent huge pages (its tunable, set before an exec).
        .target(name: "MallocHugePages", swiftSettings: strict),
        .target(name: "CRC32C"),
        // The version both executables print: `VERSION`, or `GEOTRIGGER_VERSION` when set (Tools/package.sh sets the
        // package's), written before every build by Tools/build-version.sh through the plugin below.
        .target(name: "BuildVersion", swiftSettings: strict, plugins: ["BuildVersionPlugin"]),
        .plugin(name: "BuildVersionPlugin", capability: .buildTool()),
        // sd_notify (libsystemd's sd-daemon, `CSystemd`): readiness, stopping and the watchdog for a systemd unit.
        .target(name: "SystemdNotify", dependencies: ["CSystemd"], swiftSettings: strict),
        .target(
            name: "Journal",
            dependencies: ["SystemErrors", 
                "CRC32C",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The engine's owner: applies every input, journals it with the notifications it fired, acknowledges once
        // durable, checkpoints, restores, and feeds the outbox from the journal.
        // The host's record model and the engine on a log: one input applied at a time, the same for the embedded
        // host, a restart's replay, a cluster partition and `geotrigger journal`.
        .target(name: "EngineLog", dependencies: ["JSON", "TriggerEngine", "Journal"], swiftSettings: strict),
        .target(
            name: "Host",
            dependencies: ["SystemErrors", 
                "JSON",
                "TriggerEngine", "Journal", "EngineLog", "Storage", "Delivery", "Sinks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // Scale-out by device: any instance accepts inputs into a JetStream stream partitioned by device, owns
        // partitions through leases, evaluates them in order with checkpoints, and publishes notifications.
        .target(
            name: "Cluster",
            dependencies: [
                "JSON", "TriggerEngine", "Journal", "EngineLog", "NATS", "Kafka", "Endpoints", "BlockingCalls",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The report's offline background (Natural Earth outlines, Tools/make-world-outlines.py) is compiled in.
        .target(name: "ReplayReport", dependencies: ["TriggerEngine", "Geometry"],
                resources: [.embedInCode("world-outlines.json")], swiftSettings: strict),
        // SQLite schema, migrations and repositories: the service's durable state.
        .target(
            name: "Storage",
            dependencies: [
                "JSON",
                "TriggerEngine", "EngineLog",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Where notifications go: the sink protocol with its element (`OutboxEntry`) and its failures, and the sinks
        // (NDJSON file, webhook, MQTT) with their settings. Knows nothing of the outbox, the dispatcher or the store.
        .target(
            name: "Sinks",
            dependencies: [
                "SystemErrors", "TriggerEngine", "MQTT",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // Delivery of the durable outbox to the sinks: the in-memory outbox, the dispatcher and one worker per sink
        // (cursors, retries, dead letters, back-pressure).
        .target(
            name: "Delivery",
            dependencies: [
                "Storage", "TriggerEngine", "Sinks",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // Everything that reads input besides the HTTP routes (which use its reader): stdin, TCP, gpsd, MQTT, Bluetooth.
        .target(
            name: "Inputs",
            dependencies: [
                "JSON", "Endpoints", "TriggerEngine", "Ingest", "Host", "MQTT", "Beacons", "BlueZDBus", "SystemErrors",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // HTTP API over one engine owner; persists every batch before answering.
        .target(
            name: "Server",
            dependencies: ["SystemErrors", 
                "JSON",
                "TriggerEngine", "Ingest", "Storage", "Delivery", "Sinks", "MQTT", "Host", "Cluster", "SystemdNotify", "Inputs", "Endpoints", "Journal", "EngineLog",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                // Credentials' salted hashes (HMAC-SHA256) and their constant-time check.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            // The OpenAPI document is compiled into the binary, so `serve` needs no files beside it.
            resources: [.embedInCode("openapi.json"), .embedInCode("console.html")],
            swiftSettings: strict),
        .executableTarget(
            name: "geotrigger",
            // No server, HTTP client, TLS or SQLite: `serve` is the executable below, which `geotrigger serve` runs,
            // so the main job (replay) builds in a fraction of the time (README, quick start).
            dependencies: [
                "JSON", "MallocHugePages", "CPrefetch", "BuildVersion", "SystemErrors",
                "TriggerEngine", "Ingest", "Beacons", "BlueZDBus", "ReplayReport", "Journal", "EngineLog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // `geotrigger serve`: the long-running service.
        .executableTarget(
            name: "geotrigger-serve",
            dependencies: [
                "JSON", "TriggerEngine", "Beacons", "BlueZDBus", "Server", "Host", "Cluster", "MallocHugePages", "BuildVersion",
                "SystemdNotify", "Inputs", "Storage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // librdkafka's mock Kafka cluster in a process of its own, for the Kafka cluster tests (no broker in Debian 12).
        .executableTarget(name: "geotrigger-kafka-mock", dependencies: ["Kafka"], swiftSettings: strict),
        .executableTarget(
            name: "geotrigger-bench",
            dependencies: [
                "JSON",
                "TriggerEngine", "Geometry", "Beacons", "Storage", "Delivery", "Sinks", "MQTT", "Host", "Journal", "EngineLog", "MallocHugePages", "Endpoints",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),

        // Shared by the test targets: seeded RNG, generated scenarios, the built binary, a small disk that fills up.
        .target(
            name: "TestSupport",
            dependencies: [
                "JSON", "TriggerEngine",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/TestSupport", swiftSettings: strict),

        .testTarget(name: "GeometryTests", dependencies: ["Geometry", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MallocHugePagesTests", dependencies: ["MallocHugePages", "TestSupport"], swiftSettings: strict),
        // sd_notify against a datagram socket standing in for systemd's; the watchdog fed only after progress.
        .testTarget(name: "SystemdNotifyTests", dependencies: ["SystemdNotify", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "JournalTests",
            dependencies: ["Journal", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // The host on a memory log and on real journal files with a real SQLite store: restart, checkpoints, crashes.
        .testTarget(
            name: "HostTests",
            dependencies: [
                "JSON",
                "Delivery", "Sinks", "Host", "Journal", "EngineLog", "Storage", "TriggerEngine", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TriggerEngineTests",
            dependencies: ["JSON", "TriggerEngine", "Geometry", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strict),
        .testTarget(name: "IngestTests", dependencies: ["JSON", "Ingest", "TriggerEngine", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "EndpointsTests", dependencies: ["Endpoints"], swiftSettings: strict),
        .testTarget(
            name: "InputsTests",
            dependencies: ["Inputs", "Ingest", "TriggerEngine", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strict),
        .testTarget(name: "StorageTests", dependencies: ["JSON", "Storage", "EngineLog", "TriggerEngine", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "JSON",
                "Server", "Storage", "TriggerEngine", "Delivery", "Sinks", "Journal", "EngineLog", "Host", "Inputs", "Endpoints", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "DeliveryTests",
            dependencies: ["JSON", "Delivery", "Sinks", "Storage", "TriggerEngine", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // Starts its own mosquitto broker (and openssl for the TLS CA), also under a real `serve`; skips when they are not installed.
        .testTarget(
            name: "MQTTTests",
            dependencies: [
                "MQTT", "JSON", "Server", "Delivery", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "BeaconsTests",
            dependencies: [
                "JSON", "Beacons", "TriggerEngine", "TestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strict),
        // Starts its own 3-node JetStream cluster (Debian's nats-server) and, for failover, `geotrigger serve`
        // instances; skips when nats-server is not installed.
        .testTarget(
            name: "ClusterTests",
            dependencies: [
                "JSON", "Cluster", "NATS", "Kafka", "Host", "Journal", "EngineLog", "TriggerEngine", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Device1 property dictionaries (as the D-Bus reader produces them) to sightings; no bus needed.
        .testTarget(
            name: "BlueZDBusTests",
            dependencies: ["BlueZDBus", "Beacons", "TriggerEngine"],
            swiftSettings: strict),
        // Runs the built `geotrigger` executable end to end (it is built alongside the tests).
        .testTarget(
            name: "GeoTriggerCLITests",
            dependencies: ["JSON", "Beacons", "TriggerEngine", "TestSupport", "Host", "Storage", "Journal", "EngineLog", .product(name: "Logging", package: "swift-log")],
            exclude: ["Fixtures"], swiftSettings: strict),
    ]
)
