import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A reader of `GET /v1/stream` over a plain loopback connection: the request as a browser's EventSource sends it,
/// the chunked body taken apart, the events parsed as they arrive (the test client buffers whole responses).
final class SSEClient: @unchecked Sendable {
    struct Event: Equatable, CustomStringConvertible {
        var id: String?
        var name: String
        var data: String
        var description: String { "\(name)#\(id ?? "-") \(data)" }
    }

    let connection: RawConnection
    private var raw: [UInt8] = []
    private var body: [UInt8] = []
    private var headEnd: Int?
    private var chunkOffset = 0
    private(set) var status: Int?
    private(set) var head = ""
    private(set) var events: [Event] = []
    private(set) var comments: [String] = []
    private(set) var closed = false
    private var parsedBody = 0

    /// - Parameter receiveBuffer: the socket's receive buffer, set before connecting (a reader that does not read
    ///   then holds little in flight).
    init(port: Int, path: String = "/v1/stream", headers: [String: String] = [:], receiveBuffer: Int? = nil) throws {
        connection = try RawConnection(port: port, receiveBuffer: receiveBuffer)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        for (k, v) in headers { request += "\(k): \(v)\r\n" }
        connection.send(request + "\r\n")
    }

    /// The notification events.
    var notifications: [Event] { events.filter { $0.name == "notification" } }

    /// Reads until `condition` holds or the connection closes (or, only as a hang's bound, `timeout` passes).
    /// Returns whether the condition holds.
    @discardableResult
    func read(timeout: Duration = .seconds(300), until condition: @escaping @Sendable (SSEClient) -> Bool) async -> Bool {
        await withCheckedContinuation { done in
            DispatchQueue.global().async { done.resume(returning: self.readBlocking(timeout: timeout, until: condition)) }
        }
    }

    private func readBlocking(timeout: Duration, until condition: (SSEClient) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !condition(self) {
            if closed || ContinuousClock.now >= deadline { return condition(self) }
            var p = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { closed = true; continue }
            raw += buffer[0..<n]
            parse()
        }
        return true
    }

    /// Reads until the head has arrived and, for a 200, the stream's opening comment.
    func opened() async -> Bool {
        await read { c in c.status.map { $0 != 200 || !c.comments.isEmpty } ?? false }
    }

    private func parse() {
        if headEnd == nil {
            guard let r = find([13, 10, 13, 10], in: raw, from: 0) else { return }
            headEnd = r + 4
            head = String(decoding: raw[0..<r], as: UTF8.self)
            status = head.httpStatus
            chunkOffset = r + 4
        }
        let chunked = head.lowercased().contains("transfer-encoding: chunked")
        if chunked {
            // Chunks: size in hex, CRLF, data, CRLF; size 0 ends the body.
            while let lineEnd = find([13, 10], in: raw, from: chunkOffset) {
                let sizeText = String(decoding: raw[chunkOffset..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { break }
                if size == 0 { closed = true; break }
                guard raw.count >= lineEnd + 2 + size + 2 else { break }
                body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
                chunkOffset = lineEnd + 2 + size + 2
            }
        } else if let h = headEnd, raw.count > chunkOffset {
            body += raw[max(h, chunkOffset)...]
            chunkOffset = raw.count
        }
        // Events: blocks separated by a blank line.
        while let end = find([10, 10], in: body, from: parsedBody) {
            let block = String(decoding: body[parsedBody..<end], as: UTF8.self)
            parsedBody = end + 2
            var event = Event(id: nil, name: "message", data: "")
            var isEvent = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { comments.append(String(line.dropFirst(1)).trimmingCharacters(in: .whitespaces)); continue }
                guard let colon = line.firstIndex(of: ":") else { continue }
                let field = line[..<colon], value = String(line[line.index(after: colon)...].drop { $0 == " " })
                switch field {
                case "id": event.id = value; isEvent = true
                case "event": event.name = value; isEvent = true
                case "data": event.data = value; isEvent = true
                default: break
                }
            }
            if isEvent, !event.data.isEmpty { events.append(event) }
        }
    }

    /// The body so far when the answer was not 200 (a problem document).
    var bodyText: String { String(decoding: body, as: UTF8.self) }

    private func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var i = start
        while i <= bytes.count - needle.count {
            if bytes[i] == needle[0], Array(bytes[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}

extension SSEClient.Event {
    /// The data as a JSON object.
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
    }

    var device: String? { object["device"] as? String }
    var identifier: String? { object["identifier"] as? String }
    var regionID: String? { ((object["trigger"] as? [String: Any])?["region"] as? [String: Any])?["id"] as? String }
}
