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
    /// A connection as accepted: counted in the gauge, or over the limit and to be turned away.
    private struct Accepted: Sendable {
        var connection: HTTPSession.Connection
        var admitted: Bool
    }

    private typealias Server = NIOAsyncChannel<Accepted, Never>

    let address: ListenAddress
    private let server: Server
    private let policy: HTTPRequestPolicy
    private let sinkGuard: SinkGuard
    private let logger: Logger

    /// Binds the listener before anything else starts, so that a port in use fails the start.
    init(settings: HTTPSettings, gauge: HTTPGauge, sinkGuard: SinkGuard, logger: Logger) async throws {
        let limits = {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderListSize = HTTPRequestPolicy.headerListLimit
            limits.maxHeaderFieldSize = HTTPRequestPolicy.headerListLimit
            limits.maxHeaderFieldCount = 100
            return limits
        }()
        server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: settings.address.host, port: settings.address.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    let admitted = gauge.admit()
                    if admitted {
                        channel.closeFuture.whenComplete { _ in gauge.release() }
                        try pipeline.configureHTTPServerPipeline(
                            withErrorHandling: false, withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits
                        )
                        try pipeline.addHandler(HTTPConnectionGuard())
                    } else {
                        // Only told why, never read.
                        try pipeline.addHandler(HTTPResponseEncoder())
                    }
                    return Accepted(connection: try HTTPSession.Connection(wrappingChannelSynchronously: channel), admitted: admitted)
                }
            }
        guard let bound = server.channel.localAddress, let port = bound.port else { throw IOError(errnoCode: EINVAL, reason: "HTTP listener address") }
        address = ListenAddress(host: settings.address.host, port: port)
        gauge.address = address
        policy = HTTPRequestPolicy(origins: settings.origins)
        self.sinkGuard = sinkGuard
        self.logger = logger
    }

    var description: String { "HTTPListener(\(address))" }

    func run() async throws {
        logger.info("HTTP listener", metadata: [
            "address": "\(address)", "origins": "\(policy.origins.map(\.description).sorted().joined(separator: ","))",
        ])
        if !address.isLoopback {
            logger.warning(
                "the HTTP listener is not on loopback: every host that can reach \(address) can watch presses and read the status, and pages of the allowed origins can pause and resume the guard"
            )
        }
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await accepted in connections {
                        group.addTask {
                            guard accepted.admitted else { return await turnAway(accepted.connection) }
                            await HTTPSession(connection: accepted.connection, policy: policy, sinkGuard: sinkGuard).run()
                        }
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }

    /// Answers a connection beyond the limit with 503, without reading its request, and closes it.
    private func turnAway(_ connection: HTTPSession.Connection) async {
        let error = RequestError(.tooManyClients, "the listener serves \(HTTPGauge.defaultLimit) connections at most; try again later")
        let refusal = HTTPRequestPolicy.Refusal(status: .serviceUnavailable, error: error)
        let parts = HTTPResponses.refusal(refusal, origin: nil, keepAlive: false)
        let channel = connection.channel
        _ = try? await channel.eventLoop.flatSubmit {
            for part in parts.dropLast() { channel.write(part, promise: nil) }
            return channel.writeAndFlush(parts.last!)
        }.get()
        try? await channel.close()
    }
}
