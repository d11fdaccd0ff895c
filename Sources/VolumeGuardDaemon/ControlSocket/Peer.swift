import CPeerCredentials
import Glibc
import NIOCore

/// The process at the other end of a client connection, as the kernel recorded it when it connected
/// (SO_PEERCRED): a client cannot claim to be someone else.
struct Peer {
    var pid: pid_t
    var uid: uid_t

    /// The peer of `channel`; nil when the kernel cannot say (the connection is already gone).
    init?(of channel: any Channel) async {
        guard let socket = channel as? any SocketOptionProvider,
            let credentials = try? await Self.credentials(of: socket)
        else { return nil }
        pid = credentials.pid
        uid = credentials.uid
    }

    /// Only the daemon's own user and root are served. The socket's mode keeps others out already; this
    /// holds even when someone opens up the mode or the directory.
    var isServed: Bool { uid == 0 || uid == getuid() }

    // Not inlinable, as SwiftNIO asks of calls that read a C type through it.
    private static func credentials(of socket: any SocketOptionProvider) async throws -> peer_credentials {
        try await socket.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)).get()
    }
}
