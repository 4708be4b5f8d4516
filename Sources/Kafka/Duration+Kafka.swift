extension Duration {
    /// Whole milliseconds, as librdkafka's timeouts take them.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
