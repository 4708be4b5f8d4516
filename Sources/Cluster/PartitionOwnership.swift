/// How an instance learns which partitions it evaluates: leases in a JetStream bucket, or a Kafka consumer
/// group's assignment. Either way a partition has one owner at a time, and a graceful stop hands each over with a
/// checkpoint.
protocol PartitionOwnership: Sendable {
    func start()
    /// Hands every owned partition over (checkpointed) and leaves; returns when done.
    func stop()
    /// The partitions owned now, for `/v1/cluster` and the tests: from the leases or the assignment, never from
    /// workers still winding down.
    var owned: [Int] { get }
    /// Partitions no longer owned whose workers have not returned yet (they publish nothing more).
    var stopping: [Int] { get }
}

extension PartitionOwnership {
    var stopping: [Int] { [] }
}
