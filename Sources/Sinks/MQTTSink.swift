import MQTT
import Synchronization

/// Publishes notifications to an MQTT broker with QoS 1: the payload is the SPEC §4 JSON object, the topic comes
/// from the sink's template (`geotrigger/{device}/{event}`). A batch (entries of one or more devices, each device's in order) counts as
/// delivered once the broker acknowledged every message (PUBACK); MQTT keeps one client's messages in order, so a
/// device's notifications reach subscribers in firing order.
///
/// Connection trouble — broker down, a refused login, a timeout — is retryable: nothing is dropped because the
/// broker is unreachable or misconfigured, the outbox keeps it (and its bound raises the alarm). Only a message the
/// broker itself refuses (an MQTT 5 PUBACK with an error reason, e.g. not authorised for that topic) is permanent,
/// and only that message becomes a dead letter; the ones before it in the batch were acknowledged.
public final class MQTTSink: NotificationSink {
    public let name: String
    let topic: MQTTTopicTemplate
    let client: MQTTClient
    /// `{event}` and `{regionId}` are read from the notification's JSON; device and identifier are columns.
    private let needsJSON: Bool

    /// Devices published at once (each waits for its batch's PUBACKs) and entries per batch; one connection.
    public static let concurrency = 8
    public static let batchSize = 100

    /// Connects in the background (and keeps reconnecting with backoff); `name` must not hold the password.
    public init(spec: MQTTSinkSpec, name: String) throws(DeliveryFailure) {
        self.name = name
        topic = spec.topic
        needsJSON = !spec.topic.fields.isDisjoint(with: [.event, .regionId])
        do {
            client = try MQTTClient(spec.options)
        } catch {
            throw .permanent(reason: "\(name): \(error)", status: nil, response: "")
        }
    }

    /// The topic an entry is published to.
    func topic(for entry: OutboxEntry) throws(MQTTTopicTemplateError) -> String {
        guard needsJSON else {
            return topic.render(MQTTTopicFields(device: entry.device, event: "", identifier: entry.identifier, regionId: ""))
        }
        return topic.render(try MQTTTopicFields(notificationJSON: entry.json))
    }

    /// What the broker said about entries published after one it refused (`.partial` reports only up to the
    /// refused one): the next call starts with them and is answered from here instead of publishing them again.
    private let answered = Mutex<[String: String?]>([:])  // deliveryId → nil (acknowledged) or the refusal

    public func deliver(_ entries: [OutboxEntry]) async throws(DeliveryFailure) {
        // Entries an earlier publish already settled, in order, up to the first the broker refused.
        var start = 0
        let refusal: String? = answered.withLock { known in
            while start < entries.count, let outcome = known.removeValue(forKey: entries[start].deliveryId) {
                if let reason = outcome { return reason }
                start += 1
            }
            return nil
        }
        if let refusal { throw .partial(delivered: start, failure: .permanent(reason: "\(name): \(refusal)", status: nil, response: refusal)) }
        guard start < entries.count else { return }

        var messages: [MQTTMessage] = []
        messages.reserveCapacity(entries.count - start)
        var unpublishable: (index: Int, error: MQTTTopicTemplateError)?
        for index in start..<entries.count {
            do {
                messages.append(MQTTMessage(topic: try topic(for: entries[index]), payload: Array(entries[index].json.utf8)))
            } catch {
                // The notification lacks what the template names: it can never go to this topic. The entries
                // before it are published first.
                unpublishable = (index, error)
                break
            }
        }
        do {
            try await client.publish(messages)
        } catch {
            switch error {
            case .refused(let refused):
                // Report up to the first refusal; remember the rest, which the broker has answered already.
                let first = refused.keys.min()!
                answered.withLock { known in
                    for k in (first + 1)..<messages.count { known[entries[start + k].deliveryId] = .some(refused[k]) }
                }
                throw .partial(delivered: start + first,
                               failure: .permanent(reason: "\(name): message refused: \(refused[first]!)", status: nil, response: refused[first]!))
            case .rejected(let index, let reason):
                throw .partial(delivered: start + index,
                               failure: .permanent(reason: "\(name): message refused: \(reason)", status: nil, response: reason))
            default:
                throw .partial(delivered: start, failure: .retryable(reason: "\(name): \(error)", after: nil))
            }
        }
        if let unpublishable {
            throw .partial(delivered: unpublishable.index,
                           failure: .permanent(reason: "\(name): \(unpublishable.error)", status: nil, response: ""))
        }
    }

    /// Without a connection now there will be none before the process exits: publishes waiting for the broker
    /// (up to their timeout each) fail at once and stay in the outbox. A connected client is left to finish.
    public func shutdownStarted() async {
        if !client.isConnected { await client.close() }
    }

    /// Disconnects; publishes waiting for the broker fail (retryably).
    public func close() async {
        await client.close()
    }
}
