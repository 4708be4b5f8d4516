import JSON
import TriggerEngine

/// The engine with what the host keeps beside it (each request's JSON as accepted, for the listing and the
/// checkpoints), and the one function that applies an input: the live path and a restart's replay both go
/// through `apply`, so the same journal gives the same state and the same notifications.
public final class HostState {
    public let engine: TriggerEngine
    public let decoder = RequestDecoder()
    /// Pending requests' JSON by identifier.
    public var requestJSON: [String: String] = [:]
    /// Delivered (`repeats: false`, fired) requests' JSON by identifier.
    public var deliveredJSON: [String: String] = [:]

    public init(configuration: TriggerEngine.Configuration) {
        engine = TriggerEngine(configuration: configuration)
    }

    /// What applying one input did.
    public struct Outcome {
        public var fired: [FiredNotification] = []
        /// Rejected fixes or sightings by index in the input.
        public var rejected: [(index: Int, reason: FixRejection)] = []
        public var added: [(identifier: String, result: RequestAddResult)] = []
        /// Requests now pending whose listing rows must be written.
        public var saved: [StoredRequest] = []
        public var removed: [String] = []
        public var removedAll = false
        /// Requests that fired and left the pending set.
        public var delivered: [DeliveredEntry] = []
        /// The engine refused a request part-way (the ones before it are kept).
        public var requestError: RequestError?
        /// A clock input that changed nothing but the clock: no deadline came due, no idle sweep ran.
        public var clockOnly = false
        /// A group input: whether the group was defined before.
        public var groupExisted = false
    }

    /// Applies a journal input. Requests are decoded from their JSON (a replay); the live path decodes first and
    /// calls `applyRequests` with what it decoded.
    public func apply(_ input: HostInput) -> Outcome {
        var out = Outcome()
        switch input {
        case .requests(let text):
            // The journal's own text (compact, written by this host): read from the bytes, each request's text cut
            // from them, the tree only where the byte reader gives up (then it also gives the error).
            var bytes = text
            if let decoded = bytes.withUTF8({ decoder.decodeRequestsWithTexts(bytes: UnsafeRawBufferPointer($0)) }) {
                return applyRequests(decoded.requests, texts: decoded.texts, isArray: decoded.isArray)
            }
            do {
                let json = try JSONParser.parse(text)
                let requests = try decoder.decodeRequests(json)
                return applyRequests(requests, json: json)
            } catch {
                out.requestError = error as? RequestError ?? RequestError(path: "", reason: "\(error)")
            }
        case .remove(let identifiers):
            out.removed = engine.remove(identifiers: identifiers)
            for id in out.removed { requestJSON.removeValue(forKey: id) }
        case .removeAll:
            out.removed = engine.pendingRequests.map(\.identifier)
            out.removedAll = true
            engine.removeAll()
            requestJSON.removeAll()
        case .fixes(let fixes):
            // As a batch: the next fixes' devices are prefetched while each is evaluated (`process(batch:)`).
            var fired: [FiredNotification] = []
            var rejected: [(index: Int, reason: FixRejection)] = []
            fixes.withUnsafeBufferPointer { batch in
                engine.process(batch: batch, emit: { fired.append($0) }, outcome: { k, outcome in
                    if case .rejected(let reason) = outcome { rejected.append((k, reason)) }
                })
            }
            out.fired = fired
            out.rejected = rejected
        case .sightings(let sightings):
            for (k, s) in sightings.enumerated() {
                if case .rejected(let reason) = engine.process(s, emit: { out.fired.append($0) }) { out.rejected.append((k, reason)) }
            }
        case .clock(let time):
            out.clockOnly = !engine.advance(to: time) { out.fired.append($0) }
        case .observerStarted(let device, let at):
            engine.observerStarted(device: device, at: at)
        case .observerListening(let device, let at):
            engine.observerListening(device: device, at: at) { out.fired.append($0) }
        case .group(let name, let devices):
            if let devices {
                out.groupExisted = engine.groups[name] != nil
                engine.setGroup(name, devices: devices)
            } else {
                out.groupExisted = engine.removeGroup(name)
            }
        }
        noteDelivered(&out)
        return out
    }

    /// Adds or replaces decoded requests in order; should the engine refuse one, the ones before it stay added.
    /// `texts`: each request's JSON text when the caller wrote it already (off the engine's thread); `firstIndex`:
    /// where `json`'s first item is in the body it is a piece of, for an error's path.
    public func applyRequests(_ requests: [NotificationRequest], json: JSONValue, texts: [String]? = nil,
                              firstIndex: Int = 0) -> Outcome {
        let items: [JSONValue] = json.arrayValue ?? [json]
        return applyRequests(requests, texts: texts ?? requests.indices.map { items[$0].jsonText }, isArray: json.arrayValue != nil,
                             firstIndex: firstIndex)
    }

    /// `applyRequests(_:json:texts:firstIndex:)` with each request's JSON text given; `isArray`: whether the body was an
    /// array (an error's path then names the entry).
    public func applyRequests(_ requests: [NotificationRequest], texts: [String], isArray: Bool, firstIndex: Int = 0) -> Outcome {
        var out = Outcome()
        // Where each identifier's row is in `saved`: a request named twice keeps one row, found without a scan
        // (a scan per request made a body of many requests quadratic).
        var savedAt: [String: Int] = [:]
        engine.addingInBatch {
            for (k, r) in requests.enumerated() {
                do throws(RequestError) {
                    let outcome = try engine.add(r)
                    out.added.append((r.identifier, outcome == .added ? .added : .replaced))
                    let text = texts[k]
                    requestJSON[r.identifier] = text
                    deliveredJSON.removeValue(forKey: r.identifier)
                    if let state = engine.state(ofRequest: r.identifier) {
                        let row = StoredRequest(identifier: r.identifier, json: text, state: state)
                        if let at = savedAt[r.identifier] { out.saved[at] = row } else {
                            savedAt[r.identifier] = out.saved.count
                            out.saved.append(row)
                        }
                    }
                } catch {
                    var e = error
                    e.path = isArray ? "[\(firstIndex + k)].\(e.path)" : e.path
                    out.requestError = e
                    break
                }
            }
        }
        return out
    }

    /// Fired `repeats: false` requests have left the pending set: their JSON moves to the delivered list.
    private func noteDelivered(_ out: inout Outcome) {
        for n in out.fired where !n.repeats {
            guard let json = requestJSON.removeValue(forKey: n.identifier) else { continue }
            deliveredJSON[n.identifier] = json
            let at = engine.delivered.last { $0.request.identifier == n.identifier }?.deliveredAt ?? n.firedAt
            out.delivered.append(.init(identifier: n.identifier, json: json, device: n.device, deliveredAt: at))
        }
    }

    /// The listing as the engine has it now.
    public var listing: (requests: [StoredRequest], delivered: [DeliveredEntry]) {
        let requests = engine.pendingRequestStates.compactMap { r, s in
            requestJSON[r.identifier].map { StoredRequest(identifier: r.identifier, json: $0, state: s) }
        }
        let delivered = engine.delivered.compactMap { d in
            deliveredJSON[d.request.identifier].map {
                DeliveredEntry(identifier: d.request.identifier, json: $0, device: d.device, deliveredAt: d.deliveredAt)
            }
        }
        return (requests, delivered)
    }
}
