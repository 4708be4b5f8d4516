/// A blocking HTTP/1.1 exchange over loopback, one request per connection (on `RawConnection`): enough for tests
/// that drive `geotrigger serve` processes from code that is not async and must see refused connections and 503s
/// as they are.
public enum LoopbackHTTP {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    /// Sends the request and returns the status and body.
    public static func exchange(port: Int, method: String, path: String, body: [UInt8] = [], contentType: String = "application/json") throws -> (status: Int, body: String) {
        let connection = try RawConnection(port: port)
        let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard connection.send(Array(head.utf8) + body) else { throw Failure(description: "send to port \(port) failed") }
        // The server closes the connection after its answer (`Connection: close`): the bound only stops a server
        // that never answers.
        let text = connection.receiveBlocking(timeout: .seconds(30)).text
        guard let status = text.httpStatus else {
            throw Failure(description: "no HTTP response from port \(port) (\(text.utf8.count) bytes)")
        }
        let bodyStart = text.range(of: "\r\n\r\n").map { text[$0.upperBound...] } ?? ""
        return (status, String(bodyStart))
    }
}
