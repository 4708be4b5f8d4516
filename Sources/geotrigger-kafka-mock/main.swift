// librdkafka's in-process mock Kafka cluster as a process of its own, so that separate `geotrigger serve`
// processes can share it (Debian 12 packages no Kafka broker). For the tests and for trying the Kafka path:
//
//     geotrigger-kafka-mock [--brokers N] [--topic NAME:PARTITIONS]...
//
// Prints `bootstrap HOST:PORT[,…]` on its first line once the brokers listen, then runs until killed. The mock
// names no controller, so clients cannot create topics in it: the ones named here are created directly.
import Foundation
import Kafka

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("geotrigger-kafka-mock: \(message)\n".utf8))
    exit(64)
}

var brokers = 1
var topics: [KafkaTopic] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--brokers":
        guard let n = arguments.popFirst().flatMap(Int.init), (1...9).contains(n) else { fail("--brokers takes 1…9") }
        brokers = n
    case "--topic":
        guard let spec = arguments.popFirst(), let colon = spec.lastIndex(of: ":"), let n = Int(spec[spec.index(after: colon)...]), n >= 1,
              colon > spec.startIndex else { fail("--topic takes NAME:PARTITIONS") }
        topics.append(KafkaTopic(name: String(spec[..<colon]), partitions: n))
    default:
        fail("unknown argument '\(argument)' (usage: geotrigger-kafka-mock [--brokers N] [--topic NAME:PARTITIONS]...)")
    }
}
do {
    let cluster = try MockCluster(brokers: brokers)
    for t in topics { try cluster.createTopic(t) }
    FileHandle.standardOutput.write(Data("bootstrap \(cluster.bootstrapServers)\n".utf8))
    withExtendedLifetime(cluster) {
        while true { sleep(3600) }
    }
} catch {
    fail("\(error)")
}
