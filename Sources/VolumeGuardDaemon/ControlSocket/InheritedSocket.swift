#if canImport(Glibc)
import Glibc
#endif

/// The listening socket systemd passed (socket activation), checked and ready for the control server.
struct InheritedSocket {
    enum Problem: Error, CustomStringConvertible {
        /// Not what `ListenStream=PATH` makes: a datagram socket, a TCP port, a socket not listening.
        case notAUnixStreamListener(CInt)
        case system(call: String, errno: CInt)

        var description: String {
            switch self {
            case .notAUnixStreamListener(let descriptor):
                "socket activation: descriptor \(descriptor) is not a listening Unix stream socket (the .socket unit needs ListenStream=PATH)"
            case .system(let call, let error):
                "socket activation: \(call): \(String(cString: strerror(error)))"
            }
        }
    }

    let descriptor: CInt
    /// The path the socket is bound to (`@name` for an abstract one): the socket the daemon serves, as
    /// the log names it and the record of original levels is keyed by.
    let path: String

    /// The socket systemd passed to this process, if any. The activation variables are removed from the
    /// environment either way, as sd_listen_fds(3) does when asked to.
    static func take(environment: [String: String]) throws -> InheritedSocket? {
        defer { SocketActivation.removeVariables() }
        return try SocketActivation.descriptor(environment: environment, processID: getpid()).map { try InheritedSocket(descriptor: $0) }
    }

    /// Checks that `descriptor` is a listening Unix stream socket and marks it close-on-exec: systemd
    /// passes it inheritable, and the commands of actions must not hold the control socket open.
    init(descriptor: CInt) throws(Problem) {
        guard Self.option(SO_TYPE, of: descriptor) == CInt(SOCK_STREAM.rawValue), Self.option(SO_ACCEPTCONN, of: descriptor) == 1,
            let path = Self.boundPath(of: descriptor)
        else { throw .notAUnixStreamListener(descriptor) }
        let flags = fcntl(descriptor, F_GETFD)
        guard flags >= 0, fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) == 0 else { throw .system(call: "fcntl", errno: errno) }
        self.descriptor = descriptor
        self.path = path
    }

    /// An integer socket option; nil when it cannot be read (not a socket at all).
    private static func option(_ name: CInt, of descriptor: CInt) -> CInt? {
        var value: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        return getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
    }

    /// The Unix socket's own address; nil when it is not a Unix socket, or an unnamed one.
    private static func boundPath(of descriptor: CInt) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let pathLength = Int(length) - MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let bytes = withUnsafeBytes(of: address.sun_path) { Array($0.prefix(max(pathLength, 0))) }
        guard let first = bytes.first else { return nil }
        // An abstract name starts with a NUL byte and may hold others; a path ends at its first NUL.
        if first == 0 { return "@" + String(decoding: bytes.dropFirst(), as: UTF8.self) }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
