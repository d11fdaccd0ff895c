import GuardProtocol
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SystemPackage

/// The control socket: a Unix-domain socket speaking newline-delimited JSON to any number of clients.
struct ControlServer: Service, CustomStringConvertible {
    enum StartError: Error, CustomStringConvertible {
        case alreadyRunning(String)
        case notASocket(String)
        case unsafeDirectory(String)

        var description: String {
            switch self {
            case .unsafeDirectory(let directory):
                "the socket's directory \(directory) is another user's, or others may write to it, so they could replace the socket; "
                    + "give --socket a path in a directory of this user's alone (the default is in $XDG_RUNTIME_DIR)"

            case .alreadyRunning(let path): "another volume-guard is already serving \(path)"
            case .notASocket(let path): "\(path) exists and is not a socket; refusing to replace it"
            }
        }
    }

    private typealias Server = NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>

    let path: String
    let guardService: GuardService
    let pairings: PairedClients
    let logger: Logger
    private let server: Server
    /// The socket file this daemon bound: the one it removes at the end. Nil for systemd's socket.
    private let socketFile: SocketFile?

    /// Binds the socket before anything else starts, so that a second daemon fails without ever
    /// touching a sink.
    init(path: String, guardService: GuardService, pairings: PairedClients, logger: Logger) async throws {
        let server = try await Self.bind(path)
        self.init(path: path, server: server, socketFile: SocketFile(at: path), guardService: guardService, pairings: pairings, logger: logger)
    }

    /// Serves the socket systemd passed (socket activation). Its file is systemd's: it stays in place at
    /// exit, so that the next client that connects starts the daemon again.
    init(inherited socket: InheritedSocket, guardService: GuardService, pairings: PairedClients, logger: Logger) async throws {
        let server = try await Self.adopt(socket)
        self.init(path: socket.path, server: server, socketFile: nil, guardService: guardService, pairings: pairings, logger: logger)
    }

    private init(path: String, server: Server, socketFile: SocketFile?, guardService: GuardService, pairings: PairedClients, logger: Logger) {
        self.path = path
        self.server = server
        self.socketFile = socketFile
        self.guardService = guardService
        self.pairings = pairings
        self.logger = logger
    }

    var description: String { "ControlServer(\(path))" }

    func run() async throws {
        logger.info("listening", metadata: ["socket": "\(path)"])
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { clients in
                    for try await client in clients {
                        group.addTask {
                            guard await serves(client.channel) else { return }
                            await ClientSession(client: client, guardService: guardService, pairings: pairings).run()
                        }
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
        if let socketFile, SocketFile(at: path) == socketFile { unlink(path) }
    }

    /// Whether the client at the other end of `channel` is served; anyone else is closed without a word.
    private func serves(_ channel: any Channel) async -> Bool {
        let peer = await Peer(of: channel)
        if let peer, peer.isServed { return true }
        logger.notice(
            "refused a client of another user",
            metadata: [
                "uid": "\(peer.map { String($0.uid) } ?? "unknown")", "pid": "\(peer.map { String($0.pid) } ?? "unknown")",
            ])
        try? await channel.close()
        return false
    }

    /// Binds the socket, mode 0600 from the start. A live socket means another daemon: refuse. A stale
    /// one, left by a killed daemon, is replaced; anything that is not a socket is left alone.
    private static func bind(_ path: String) async throws -> Server {
        let directory = FilePath(path).removingLastComponent().string
        guard isSafe(directory: directory.isEmpty ? "." : directory) else { throw StartError.unsafeDirectory(directory) }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw StartError.notASocket(path) }
            if await Self.isServed(path) { throw StartError.alreadyRunning(path) }
        }
        let oldMask = umask(0o177)
        defer { umask(oldMask) }
        return try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true, childChannelInitializer: client)
    }

    /// Whether only this user (or root) can put another file in place of the socket in `directory`: it is
    /// this user's or root's, and no one else may write to it, unless it is sticky (`/tmp`), where a file
    /// is removed by its owner alone. A `/tmp/volume-guard-UID` made by another user first is refused.
    private static func isSafe(directory: String) -> Bool {
        var info = stat()
        guard stat(directory, &info) == 0 else { return false }
        let owned = info.st_uid == getuid() || info.st_uid == 0
        let othersWrite = info.st_mode & (S_IWGRP | S_IWOTH) != 0 && info.st_mode & S_ISVTX == 0
        return owned && !othersWrite
    }

    /// Serves an inherited listening socket. SwiftNIO listens on an adopted socket again, with its default
    /// backlog (128), before any option applies: listening once more gives it this server's own, and
    /// keeps the clients already waiting in its queue.
    private static func adopt(_ socket: InheritedSocket) async throws -> Server {
        let server = try await bootstrap.bind(socket.descriptor, childChannelInitializer: client)
        guard listen(socket.descriptor, backlog) == 0 else {
            let error = IOError(errnoCode: errno, reason: "listen")
            try? await server.channel.close()
            throw error
        }
        return server
    }

    /// Room for a thousand clients connecting at once: a full backlog fails a client's connect.
    private static let backlog: Int32 = 4096

    /// The server's options, whether it binds its socket or adopts systemd's.
    private static var bootstrap: ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: backlog)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
    }

    /// Each client's channel: request lines in, byte buffers out.
    @Sendable private static func client(_ channel: any Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestLineDecoder()))
            return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
    }

    /// Whether something accepts connections on the socket at `path`.
    static func isServed(_ path: String) async -> Bool {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path).get()
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }
}
