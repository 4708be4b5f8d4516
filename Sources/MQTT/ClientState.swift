import CMosquitto
import Synchronization

/// What the network thread's callbacks and the calling tasks share: the link status and everyone waiting on it
/// or on acknowledgements. It is libmosquitto's userdata. One lock guards it; the publishing path holds it across
/// `mosquitto_publish` so a PUBACK cannot be handled before its message id is registered. That cannot deadlock:
/// libmosquitto calls these callbacks holding only its callback mutex, which `mosquitto_publish` never takes, and the
/// log callback uses a lock of its own (libmosquitto logs while holding its message mutex).
final class ClientState: Sendable {
    typealias Outcome = Result<Void, MQTTError>

    enum Link: Sendable, Equatable {
        case connecting
        case connected
        case down(MQTTError)
    }

    struct Waiter {
        enum Kind {
            case link
            /// PUBACKs still awaited, and the messages the broker refused so far (index in the batch → reason).
            case acknowledgements(remaining: Int, refused: [Int: String])
            case subscription
            case shutdown
        }
        enum Phase {
            case pending
            case waiting(CheckedContinuation<Outcome, Never>)
            case done(Outcome)
        }
        var kind: Kind
        var phase: Phase = .pending
    }

    struct State {
        var link = Link.connecting
        var closing = false
        var finished = false
        var consecutiveFailures = 0
        /// CONNACK reason of the latest refused connection, until the network thread reports the failure.
        var refusal: Int32?
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        /// Message id → (waiter, index in its batch).
        var inflight: [Int32: (waiter: Int, index: Int)] = [:]
        var subscriptionMids: [Int32: Int] = [:]
        var subscriptions: [(filter: String, qos: MQTTQoS)] = []
        var generation = 0
    }

    let state = Mutex(State())
    private let lastLogError = Mutex<String?>(nil)
    let endpoint: String
    let version: MQTTClient.ProtocolVersion
    let messageSink: AsyncStream<MQTTMessage>.Continuation

    init(endpoint: String, version: MQTTClient.ProtocolVersion, messageSink: AsyncStream<MQTTMessage>.Continuation) {
        self.endpoint = endpoint
        self.version = version
        self.messageSink = messageSink
    }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> ClientState {
        Unmanaged<ClientState>.fromOpaque(userdata!).takeUnretainedValue()
    }

    // MARK: Waiters

    /// Registers a waiter in the locked state; complete it with `complete`, wait for it with `wait`.
    static func register(_ kind: Waiter.Kind, in s: inout State) -> Int {
        s.nextWaiter += 1
        s.waiters[s.nextWaiter] = Waiter(kind: kind)
        return s.nextWaiter
    }

    /// Finishes a waiter in the locked state; returns the continuation to resume once the lock is released.
    static func finish(_ id: Int, _ outcome: Outcome, in s: inout State) -> (CheckedContinuation<Outcome, Never>, Outcome)? {
        guard var w = s.waiters[id] else { return nil }
        if case .acknowledgements = w.kind, case .failure = outcome {
            // Acknowledgements that still come for this batch are ignored (rare: failures only, so a scan is fine).
            for (mid, entry) in s.inflight where entry.waiter == id { s.inflight[mid] = nil }
        }
        switch w.phase {
        case .pending:
            w.phase = .done(outcome)
            s.waiters[id] = w
            return nil
        case .waiting(let c):
            s.waiters[id] = nil
            return (c, outcome)
        case .done:
            return nil
        }
    }

    func complete(_ id: Int, _ outcome: Outcome) {
        let resume = state.withLock { Self.finish(id, outcome, in: &$0) }
        if let (c, o) = resume { c.resume(returning: o) }
    }

    /// Waits until the waiter completes, the deadline passes (`expired` builds the error from the state then) or
    /// the task is cancelled.
    func wait(_ id: Int, until deadline: ContinuousClock.Instant,
              expired: @escaping @Sendable (inout State) -> MQTTError) async -> Outcome {
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled, let self else { return }
            let resume = self.state.withLock { s in Self.finish(id, .failure(expired(&s)), in: &s) }
            if let (c, o) = resume { c.resume(returning: o) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Outcome, Never>) in
                let ready: Outcome? = state.withLock { s in
                    guard var w = s.waiters[id] else { return .failure(.closed) }
                    if case .done(let o) = w.phase {
                        s.waiters[id] = nil
                        return o
                    }
                    w.phase = .waiting(c)
                    s.waiters[id] = w
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            complete(id, .failure(.cancelled))
        }
    }

    // MARK: Callbacks (network thread)

    func connected(_ rc: Int32, mosquitto: OpaquePointer?) {
        guard rc == 0 else {
            state.withLock { $0.refusal = rc }
            return
        }
        var resume: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
        let subscriptions = state.withLock { s in
            s.link = .connected
            s.refusal = nil
            s.consecutiveFailures = 0
            s.generation += 1
            for (id, w) in s.waiters {
                if case .link = w.kind, let r = Self.finish(id, .success(()), in: &s) { resume.append(r) }
            }
            return s.subscriptions
        }
        lastLogError.withLock { $0 = nil }
        for (c, o) in resume { c.resume(returning: o) }
        // A clean session forgets subscriptions: make them again on every connection.
        if let mosquitto {
            MosquittoHandle.setLogCapture(mosquitto, false)
            for sub in subscriptions { _ = mosquitto_subscribe(mosquitto, nil, sub.filter, sub.qos.rawValue) }
        }
    }

    func disconnected(_ rc: Int32) {
        // The network thread reports the failure with its return code; nothing to do while closing or after.
        state.withLock { s in
            if s.link == .connected, rc != 0 {
                s.link = .down(.notConnected("connection to \(endpoint) lost: \(MosquittoHandle.describe(rc))"))
            }
        }
    }

    func acknowledged(mid: Int32, reason: Int32) {
        let resume: (CheckedContinuation<Outcome, Never>, Outcome)? = state.withLock { s in
            guard let (id, index) = s.inflight.removeValue(forKey: mid), let w = s.waiters[id],
                  case .acknowledgements(let remaining, var refused) = w.kind else { return nil }
            // MQTT 5 PUBACK reason codes ≥ 0x80 are failures; 0x10 (no matching subscribers) is success.
            if reason == 0x97 {
                return Self.finish(id, .failure(.timeout("the broker's quota is exceeded (PUBACK reason 0x97)")), in: &s)
            }
            if reason >= 0x80 {
                // Wait for the rest of the batch: the messages after this one were sent too, and whether each was
                // taken is what lets a caller avoid sending them twice.
                let text = String(cString: mosquitto_reason_string(reason))
                refused[index] = "the broker answered PUBACK reason 0x\(String(reason, radix: 16)): \(text)"
            }
            s.waiters[id]!.kind = .acknowledgements(remaining: remaining - 1, refused: refused)
            guard remaining == 1 else { return nil }
            return Self.finish(id, refused.isEmpty ? .success(()) : .failure(.refused(refused)), in: &s)
        }
        if let (c, o) = resume { c.resume(returning: o) }
    }

    func subscribed(mid: Int32, granted: Int32) {
        let resume = state.withLock { s -> (CheckedContinuation<Outcome, Never>, Outcome)? in
            guard let id = s.subscriptionMids.removeValue(forKey: mid) else { return nil }
            let outcome: Outcome = granted >= 0x80
                ? .failure(.rejected(index: 0, reason: "the broker refused the subscription (reason 0x\(String(granted, radix: 16)))"))
                : .success(())
            return Self.finish(id, outcome, in: &s)
        }
        if let (c, o) = resume { c.resume(returning: o) }
    }

    func received(_ message: MQTTMessage) {
        messageSink.yield(message)
    }

    func logged(_ line: String) {
        lastLogError.withLock { $0 = line }
    }

    // MARK: Network thread

    var isClosing: Bool { state.withLock { $0.closing } }

    /// Records why the link is down; returns the failure count for the backoff. Waiting publishers fail at once
    /// when the failure is permanent, else they keep waiting for a later attempt until their deadline.
    func connectionFailed(rc: Int32, errno code: Int32) -> Int {
        let log = lastLogError.withLock { line -> String? in defer { line = nil }; return line }
        var resume: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
        let failures = state.withLock { s in
            let error = classify(rc: rc, errno: code, refusal: s.refusal, log: log)
            s.refusal = nil
            s.link = .down(error)
            s.consecutiveFailures += 1
            if !error.isRetryable {
                for (id, w) in s.waiters {
                    if case .link = w.kind, let r = Self.finish(id, .failure(error), in: &s) { resume.append(r) }
                }
            }
            return s.consecutiveFailures
        }
        for (c, o) in resume { c.resume(returning: o) }
        return failures
    }

    private func classify(rc: Int32, errno code: Int32, refusal: Int32?, log: String?) -> MQTTError {
        if let refusal {
            let text = version == .v5 ? String(cString: mosquitto_reason_string(refusal)) : String(cString: mosquitto_connack_string(refusal))
            // Refusals that say "later" rather than "never": v3.1.1 server unavailable; v5 unavailable, busy,
            // quota exceeded, connection rate exceeded.
            let transient: Set<Int32> = version == .v5 ? [0x88, 0x89, 0x97, 0x9F] : [3]
            let what = "\(endpoint) answered CONNACK \(refusal): \(text)"
            return transient.contains(refusal) ? .notConnected(what) : .connectionRefused(what)
        }
        var text = "\(endpoint): \(MosquittoHandle.describe(rc, errno: code))"
        if let log { text += " (\(log))" }
        switch rc {
        case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue, MOSQ_ERR_AUTH.rawValue, MOSQ_ERR_NOT_SUPPORTED.rawValue:
            return .connectionRefused(text)
        default:
            return .notConnected(text)
        }
    }

    /// The network thread has stopped: every waiter fails with `closed`, the message stream ends.
    func finishAll() {
        var resume: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
        state.withLock { s in
            s.finished = true
            s.link = .down(.closed)
            for id in Array(s.waiters.keys) {
                let w = s.waiters[id]!
                let outcome: Outcome = if case .shutdown = w.kind { .success(()) } else { .failure(.closed) }
                if let r = Self.finish(id, outcome, in: &s) { resume.append(r) }
            }
        }
        for (c, o) in resume { c.resume(returning: o) }
        messageSink.finish()
    }
}
