import GuardProtocol
import NIOCore
import NIOHTTP1

/// What NIOHTTP1's server pipeline leaves to the server, for each connection of the HTTP listener:
///
/// - a deadline for each request to arrive whole, head and body: a client that trickles its head a
///   byte at a time (slowloris), or opens a connection and sends nothing, is closed when it passes, so
///   that idle connections cannot hold the listener's places. It runs from the connection's start and
///   from the end of each response until the request's end; an event stream, whose response never
///   ends, has none.
/// - an answer to a request the decoder cannot read, as a JSON error with the protocol's code: 431
///   for a head over the decoder's limits, 400 for anything else; then the decoder closes the
///   connection. (It stands in for NIOHTTP1's `HTTPServerProtocolErrorHandler`, whose 400 has no body.)
final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// How long a request may take to arrive, and a kept-alive connection may wait for the next one.
    static let requestDeadline: TimeAmount = .seconds(10)

    /// Where the connection's current exchange is.
    private enum Exchange {
        /// No response is under way: a request is awaited or arriving.
        case awaitingResponse
        /// A response's head is written and its end is not.
        case responding
        /// The response is an event stream, which has no end.
        case streaming
    }

    private var deadline: Scheduled<Void>?
    private var exchange = Exchange.awaitingResponse
    /// The client ended its side (the listener allows half-closed connections, so that `nc -N` is answered).
    private var inputClosed = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { disarm() }
        context.fireChannelRead(data)
    }

    /// A client that ends its side is gone for an event stream: an `EventSource` never half-closes, so its
    /// FIN is its close, and its place is given up at once, not at the next line's failed write.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event as? ChannelEvent == .inputClosed {
            inputClosed = true
            if exchange == .streaming { return context.close(promise: nil) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            let streaming = head.headers[canonicalForm: "content-type"].contains { $0.hasPrefix("text/event-stream") }
            exchange = streaming ? .streaming : .responding
            if streaming && inputClosed {
                context.write(data, promise: promise)
                return context.close(promise: nil)
            }
        case .end:
            exchange = .awaitingResponse
            arm(context)
        default: break
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        if exchange == .awaitingResponse {
            let refusal: HTTPRequestPolicy.Refusal =
                if case .headerOverflow = parserError {
                    .init(
                        status: .requestHeaderFieldsTooLarge,
                        error: RequestError(.headersTooLarge, "the request's headers are over \(HTTPRequestPolicy.headerListLimit) bytes"))
                } else {
                    .init(status: .badRequest, error: RequestError(.badRequest, "the request is not HTTP/1.1 this listener can read"))
                }
            for part in HTTPResponses.refusal(refusal, origin: nil, keepAlive: false) {
                context.write(wrapOutboundOut(part), promise: nil)
            }
            context.flush()
        }
        context.fireErrorCaught(error)
    }

    private func arm(_ context: ChannelHandlerContext) {
        disarm()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: Self.requestDeadline) { channel.close(promise: nil) }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
