extension ClusterConfiguration {
    /// The longest any one call of the lease keeper may block (a key-value get, create, update, delete or key
    /// listing; a connect). A quarter of the TTL: a renewal that failed can be tried once more, and its answer
    /// awaited, before the lease could expire.
    var leaseCallBound: Duration { leaseTTL / 4 }

    /// The longest any one call of a partition's owner may block (a fetch, a publish, the wait for asynchronous
    /// publishes, a checkpoint write): an owner whose lease was abandoned notices within the TTL, and an owner stuck
    /// on a cluster that does not answer starts over from its checkpoint instead of waiting on.
    var workerCallBound: Duration { leaseTTL / 2 }

    /// nats.c tries each server in turn with this connect timeout: the whole list fits in `bound`.
    func connectTimeout(within bound: Duration) -> Duration {
        max(.milliseconds(100), bound / max(1, servers.count))
    }
}
