/// Polls `condition` every `interval` until it holds or `timeout` passes, then once more; returns whether it held.
/// The tests' one polling loop: the timeout only ends a wait for something that never happens, so it is generous.
public func eventually(timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(20),
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
