import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Bounds what one HTTP connection may hold on to, between the HTTP parser and the request handler:
/// - a request's head must be complete within `headerTimeout` of the connection opening (slow-header clients);
/// - its body within `bodyTimeout` of the head (a client trickling bytes gets 408, the handler sees `BodyTimeout`);
/// - a keep-alive connection is closed after `idleTimeout` without a new request;
/// - a client address holds at most `maximumConnectionsPerAddress` connections (`OpenConnections`).
/// A request the parser refuses before its head is complete (unknown method, headers or URI too long) is answered
/// with a problem document here, where Hummingbird would send an empty 400.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    enum Phase: String {
        case header, body, idle
    }

    let limits: ConnectionLimits
    let connections: OpenConnections
    let logger: Logger
    /// The address key the connection is counted under, once admitted.
    private var admitted: String?
    private var refused = false
    private var phase: Phase?
    private var requestOpen = false
    private var bodyRead = false
    private var responded = false
    private var timer: Scheduled<Void>?

    init(limits: ConnectionLimits, connections: OpenConnections, logger: Logger) {
        self.limits = limits
        self.connections = connections
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added to a channel that is already active: its channelActive has passed.
        if context.channel.isActive { opened(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        release(context)
    }

    func channelActive(context: ChannelHandlerContext) {
        if phase == nil, !refused { opened(context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        release(context)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection is being closed: nothing it sent reaches a handler.
        guard !refused else { return }
        read(context: context, data: data)
    }

    /// Counts the connection in for its address, or closes it when the address holds its share already.
    private func opened(_ context: ChannelHandlerContext) {
        guard admitted == nil, !refused else { return }
        guard let key = connections.admit(context.channel) else {
            refused = true
            ServerMetrics().connectionRefused()
            logger.debug("connection refused: its address holds its share", metadata: [
                "peer": "\(context.remoteAddress.map { "\($0)" } ?? "-")", "limit": "\(connections.perAddress)"])
            context.close(promise: nil)
            return
        }
        admitted = key
        arm(.header, context)
    }

    private func release(_ context: ChannelHandlerContext) {
        guard let key = admitted else { return }
        admitted = nil
        connections.release(context.channel, key: key)
    }

    private func read(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestOpen = true
            bodyRead = false
            responded = false
            arm(.body, context)
        case .body:
            break
        case .end:
            bodyRead = true
            // The handler takes what time it needs; once it has answered, the connection is idle.
            if responded { finishRequest(context) } else { disarm() }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), requestOpen {
            responded = true
            // An answer before the whole body (413, 503) leaves the body timer running while the rest is drained.
            if bodyRead { finishRequest(context) }
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // During a request the handler is reading its body: the error reaches it and becomes its 4xx.
        guard !requestOpen, let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let problem = Problem.malformedHTTP(parse)
        ServerMetrics().clientError(status: problem.status.code)
        logger.debug("malformed HTTP request", metadata: ["error": "\(parse)", "peer": "\(context.remoteAddress.map { "\($0)" } ?? "-")"])
        respondAndClose(problem, context)
    }

    private func finishRequest(_ context: ChannelHandlerContext) {
        requestOpen = false
        arm(.idle, context)
    }

    private func arm(_ phase: Phase, _ context: ChannelHandlerContext) {
        disarm()
        self.phase = phase
        let limit = switch phase {
        case .header: limits.headerTimeout
        case .body: limits.bodyTimeout
        case .idle: limits.idleTimeout
        }
        let loop = context.eventLoop.assumeIsolated()
        timer = loop.scheduleTask(in: TimeAmount(limit)) { [self] in expired(phase, limit, context) }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }

    private func expired(_ phase: Phase, _ limit: Duration, _ context: ChannelHandlerContext) {
        timer = nil
        ServerMetrics().connectionTimeout(phase.rawValue)
        logger.debug("connection timed out", metadata: [
            "phase": "\(phase.rawValue)", "limit": "\(limit)", "peer": "\(context.remoteAddress.map { "\($0)" } ?? "-")"])
        switch phase {
        case .header, .idle:
            context.close(promise: nil)
        case .body:
            // The handler is waiting for the body: it gets the error and answers 408; whatever it does, the
            // connection does not outlive a short grace.
            context.fireErrorCaught(BodyTimeout(limit: limit))
            let loop = context.eventLoop.assumeIsolated()
            timer = loop.scheduleTask(in: TimeAmount(limits.bodyTimeoutGrace)) { context.close(promise: nil) }
        }
    }

    private func respondAndClose(_ problem: Problem, _ context: ChannelHandlerContext) {
        disarm()
        let body = problem.bytes
        let head = HTTPResponse(status: problem.status, headerFields: [
            .contentType: "application/problem+json", .contentLength: String(body.count), .connection: "close"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// The body of a request did not arrive within `http.bodyTimeout`: the client hears 408.
struct BodyTimeout: Error, CustomStringConvertible {
    var limit: Duration
    var description: String { "the request body was not complete within \(limit) of its head" }
}
