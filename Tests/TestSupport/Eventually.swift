#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` every `interval` until it holds or `timeout` passes, then once more; returns whether it held.
/// The tests' one polling loop. The timeout only ends a wait for something that never happens, so the default is
/// one no busy machine reaches (suites beside four CPU-bound loops have stalled for two minutes); a shorter one is
/// for a deliberate grace period (then escalate), never for a bound the code under test must meet.
public func eventually(timeout: Duration = .seconds(600), every interval: Duration = .milliseconds(20),
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// `eventually` for a caller on a thread of its own (a helper that starts or stops a server synchronously).
public func eventuallyBlocking(timeout: Duration = .seconds(600), every interval: Duration = .milliseconds(20),
                               _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    let c = interval.components
    let microseconds = useconds_t(c.seconds * 1_000_000 + c.attoseconds / 1_000_000_000_000)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(microseconds)
    }
    return condition()
}
