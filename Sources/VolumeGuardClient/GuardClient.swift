import GuardProtocol
import NIOCore
import NIOPosix

/// A client of a running daemon's control socket.
public struct GuardClient: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        /// Nothing accepts connections at the socket path.
        case noDaemon(path: String, reason: String)
        /// The daemon closed the connection before replying.
        case closed

        public var description: String {
            switch self {
            case .noDaemon(let path, let reason): "no volume-guard daemon at \(path) (\(reason))"
            case .closed: "the daemon closed the connection"
            }
        }
    }

    public let socketPath: String

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Opens a connection, runs `body` with it, and closes it.
    public func withSession<Result: Sendable>(_ body: (GuardSession) async throws -> Result) async throws -> Result {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw Failure.noDaemon(path: socketPath, reason: "\(error)")
        }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(GuardSession(inbound: inbound, outbound: outbound))
        }
    }

    /// Sends one request and returns its reply.
    public func request(_ request: Request) async throws -> ServerMessage {
        try await withSession { session in
            try await session.send(request)
            guard let reply = try await session.next() else { throw Failure.closed }
            return reply
        }
    }
}

/// An open connection to the daemon: send requests, read the lines it sends back.
public final class GuardSession {
    private var lines: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.lines = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    public func send(_ request: Request) async throws {
        try await write(ByteBuffer(bytes: WireFormat.line(request)))
    }

    /// Sends bytes as they are, for speaking the protocol by hand (a newline ends a request).
    public func send(raw bytes: some Sequence<UInt8>) async throws {
        try await write(ByteBuffer(bytes: bytes))
    }

    /// Writes to the daemon; a daemon that already closed the connection (it refused us) is reported
    /// as such, whichever way the socket says so.
    private func write(_ buffer: ByteBuffer) async throws {
        do {
            try await outbound.write(buffer)
        } catch ChannelError.ioOnClosedChannel, ChannelError.outputClosed {
            throw GuardClient.Failure.closed
        } catch let error as IOError where error.errnoCode == EPIPE || error.errnoCode == ECONNRESET {
            throw GuardClient.Failure.closed
        }
    }

    /// The next line the daemon sent, without its newline; nil when the connection ended.
    public func nextLine() async throws -> String? {
        do {
            return try await lines.next().map { String(buffer: $0) }
        } catch let error as IOError where error.errnoCode == ECONNRESET {
            // The daemon closed the connection with a request of ours unread (it refused us, or we sent
            // too much): an end like any other.
            return nil
        }
    }

    /// The next message the daemon sent, skipping lines this version does not know; nil at the end.
    public func next() async throws -> ServerMessage? {
        while let line = try await nextLine() {
            if let message = ServerMessage(line: Array(line.utf8)) { return message }
        }
        return nil
    }
}
