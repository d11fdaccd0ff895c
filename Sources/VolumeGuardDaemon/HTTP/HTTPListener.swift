import GuardProtocol
import GuardSettings
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The opt-in HTTP listener (`http`): presses as Server-Sent Events for web pages, which cannot open
/// a Unix socket, plus status, pause and resume. It runs on the daemon's event loop with NIOHTTP1's
/// codec; `HTTPRequestPolicy` decides every request, `HTTPSession` serves it.
///
/// Bounded in every way a client could make it grow: the head (NIOHTTP1's decoder limits, then
/// 431), the body (413), the time a request takes to arrive (`HTTPConnectionGuard`), the connections
/// open at once (`HTTPGauge.limit`, then 503), and what waits for a stream that stops reading (its
/// `ClientQueue`, then it is cut loose).
struct HTTPListener: Service, CustomStringConvertible {
    /// A connection as accepted: served, or nil when it was over the limit (`TurnAway` answers it).
    private struct Accepted: Sendable {
        var connection: HTTPSession.Connection?
    }

    private typealias Server = NIOAsyncChannel<Accepted, Never>

    let address: ListenAddress
    private let server: Server
    private let policy: HTTPRequestPolicy
    private let clients: PairedClients
    private let guardService: GuardService
    private let logger: Logger

    /// Binds the listener before anything else starts, so that a port in use fails the start.
    init(settings: HTTPSettings, gauge: HTTPGauge, clients: PairedClients, guardService: GuardService, logger: Logger) async throws {
        server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptFailures(logger: logger)) }
            }
            // A bounded send buffer, not the megabytes TCP's autotuning allows: what a stream that stops
            // reading can hold is its queue and this, so it is cut loose after a bounded number of presses.
            .childChannelOption(.socketOption(.so_sndbuf), value: 64 * 1024)
            // A client may end its side once its request is sent (`nc -N`, `printf ... | socat`): it is
            // still answered, and the connection closed after the answer. NIO would close it at the EOF.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(host: settings.address.host, port: settings.address.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    guard gauge.admit() else {
                        try pipeline.addHandlers([HTTPResponseEncoder(), TurnAway()])
                        return Accepted(connection: nil)
                    }
                    channel.closeFuture.whenComplete { _ in gauge.closed() }
                    try pipeline.configureHTTPServerPipeline(
                        withErrorHandling: false, withEncoderConfiguration: .init(), withDecoderLimitConfiguration: HTTPRequestPolicy.decoderLimits
                    )
                    try pipeline.addHandler(HTTPConnectionGuard())
                    return Accepted(connection: try HTTPSession.Connection(wrappingChannelSynchronously: channel))
                }
            }
        guard let bound = server.channel.localAddress, let port = bound.port else { throw IOError(errnoCode: EINVAL, reason: "HTTP listener address") }
        address = ListenAddress(host: settings.address.host, port: port)
        gauge.address = address
        policy = HTTPRequestPolicy(origins: settings.origins, tokensRequired: settings.tokensRequired)
        self.clients = clients
        self.guardService = guardService
        self.logger = logger
    }

    var description: String { "HTTPListener(\(address))" }

    func run() async throws {
        logger.info(
            "HTTP listener",
            metadata: [
                "address": "\(address)", "origins": "\(policy.origins.map(\.description).sorted().joined(separator: ","))",
                "tokens": "\(policy.tokensRequired ? "required" : "optional")", "paired": "\(clients.pairings.clients.count)",
            ])
        if policy.tokensRequired, clients.pairings.clients.isEmpty {
            logger.notice(
                "the HTTP listener needs a paired client's token and no client is paired yet: volume-guard pair NAME",
                metadata: ["pairings": "\(clients.file.path)"])
        }
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await accepted in connections {
                        guard let connection = accepted.connection else { continue }
                        group.addTask {
                            await HTTPSession(connection: connection, policy: policy, clients: clients, guardService: guardService).run()
                        }
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }
}

/// A connection beyond the listener's limit: answered 503 as soon as it is up, without reading its
/// request, and closed. It costs no task and is never counted.
private final class TurnAway: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = HTTPServerResponsePart

    func channelActive(context: ChannelHandlerContext) {
        let error = RequestError(.tooManyClients, "the listener serves \(HTTPGauge.defaultLimit) connections at most; try again later")
        let parts = HTTPResponses.refusal(.init(status: .serviceUnavailable, error: error), origin: nil, keepAlive: false)
        for part in parts.dropLast() { context.write(wrapOutboundOut(part), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(parts.last!), promise: nil)
        // Half-closed, so that the answer is read before the request still coming in could reset the
        // connection; closed for good when the client closes, or a second later.
        context.close(mode: .output, promise: nil)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }

    /// The request is never read: dropped as it comes.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

/// Keeps a failed accept from ending the listener. Out of descriptors (a flood, with the open-file limit
/// low) SwiftNIO keeps its server socket open and tries again later, but reports the error through the
/// pipeline, where it would end the stream of connections, and with it the listener and the daemon.
private final class AcceptFailures: ChannelInboundHandler {
    typealias InboundIn = any Channel

    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM, ECONNABORTED].contains(error.errnoCode) else {
            return context.fireErrorCaught(error)
        }
        logger.warning("the HTTP listener cannot accept a connection", metadata: ["error": "\(error)"])
    }
}
