import Delivery
import Host
import Hummingbird
import HTTPTypes
import Journal

/// `GET /v1/stream`: Server-Sent Events of fired notifications (and device positions when asked), resumable with
/// `Last-Event-ID`. Each reader has a bounded buffer; one that falls behind is told (`event: lagged`) and reads on
/// from the journal, so no reader ever slows the engine or another reader (`StreamHub`, `StreamSession`).
struct StreamRoutes: Sendable {
    let host: EngineHost

    /// - Parameter read: the group behind `ownDeviceRead`: a device credential streams its own devices.
    func register(read: RouterGroup<APIContext>) {
        read.get("stream") { request, context in try stream(request, context) }
    }

    private func stream(_ request: Request, _ context: APIContext) throws -> Response {
        let filter = try StreamFilter(request.uri.queryParameters, credential: context.credential)
        var resume: Int64?
        if let text = request.headers[Self.lastEventID] { resume = try self.resume(text) }
        guard let subscription = host.stream.subscribe(capacity: filter.buffer, positions: filter.positions) else {
            throw Problem(.serviceUnavailable, title: "Shutting down", detail: "the server is shutting down; reconnect to another")
        }
        let session = StreamSession(host: host, subscription: subscription, filter: filter, resume: resume)
        return Response(status: .ok, headers: [
            .contentType: "text/event-stream", .cacheControl: "no-store",
            // nginx buffers responses unless told not to: an event would wait for the buffer to fill.
            HTTPField.Name("X-Accel-Buffering")!: "no",
        ], body: ResponseBody { writer in
            do {
                try await session.run(&writer)
            } catch {
                host.stream.unsubscribe(subscription)
                throw error
            }
            host.stream.unsubscribe(subscription)
            try await writer.finish(nil)
        })
    }

    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    /// The notification a `Last-Event-ID` names: an event id this route gives out (an outbox sequence, decimal) of a
    /// record the journal has written and still holds.
    func resume(_ text: String) throws(Problem) -> Int64 {
        guard let sequence = Int64(text), let position = JournalOutbox.position(of: sequence) else {
            throw Problem(.badRequest, title: "Bad Last-Event-ID",
                          detail: "Last-Event-ID '\(text.prefix(64))' is not an event id of this stream (a decimal notification sequence ≥ \(JournalOutbox.journalBase))")
        }
        let end = host.log.nextPosition
        guard position < end else {
            throw Problem(.badRequest, title: "Bad Last-Event-ID",
                          detail: "Last-Event-ID \(sequence) names journal record \(position), beyond the journal's end (\(end)): not an id this server gave out")
        }
        let oldest = host.log.firstPosition
        guard position >= oldest else {
            throw Problem(.gone, title: "Events no longer kept",
                          detail: "Last-Event-ID \(sequence) names journal record \(position); the journal now starts at \(oldest): reconnect without Last-Event-ID (events in between are not replayable)")
        }
        return sequence
    }
}
