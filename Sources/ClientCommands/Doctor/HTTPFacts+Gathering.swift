import Glibc
import GuardProtocol
import GuardSettings

extension HTTPFacts {
    /// How long a connection to the listener may take: it is on this machine, or near it.
    static let connectPatience: Duration = .seconds(2)

    /// Where to find the listener: where the daemon says it bound, else where it is configured; nil when
    /// there is none, or its port is the kernel's choice (0) and no daemon says which.
    static func address(configured: ListenAddress?, daemon: DaemonFacts) -> ListenAddress? {
        if case .answered(let status) = daemon, let bound = status.http.flatMap({ ListenAddress($0.address) }) { return bound }
        guard let configured, configured.port != 0 else { return nil }
        return configured
    }

    /// A TCP connection to `address`, closed at once: whether anything accepts there. A wildcard address
    /// is reached through loopback.
    static func connect(to address: ListenAddress) -> Result<Void, ConnectFailure> {
        let isIPv6 = address.host.contains(":")
        let host = address.host == "0.0.0.0" ? "127.0.0.1" : address.host == "::" ? "::1" : address.host
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(ConnectFailure(reason: lastError)) }
        defer { close(descriptor) }
        let started: Int32
        if isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = UInt16(address.port).bigEndian
            inet_pton(AF_INET6, host, &socketAddress.sin6_addr)
            started = begin(descriptor, socketAddress)
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = UInt16(address.port).bigEndian
            inet_pton(AF_INET, host, &socketAddress.sin_addr)
            started = begin(descriptor, socketAddress)
        }
        if started == 0 { return .success(()) }
        guard errno == EINPROGRESS else { return .failure(ConnectFailure(reason: lastError)) }
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(connectPatience.components.seconds * 1000)
        guard poll(&entry, 1, milliseconds) == 1 else {
            return .failure(ConnectFailure(reason: "no answer within \(connectPatience.components.seconds) s"))
        }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
        return failure == 0 ? .success(()) : .failure(ConnectFailure(reason: String(cString: strerror(failure)).lowercased()))
    }

    /// connect(2) of `descriptor` to `socketAddress`, a `sockaddr_in` or `sockaddr_in6`.
    private static func begin<SocketAddress>(_ descriptor: Int32, _ socketAddress: SocketAddress) -> Int32 {
        withUnsafePointer(to: socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<SocketAddress>.size)) }
        }
    }

    private static var lastError: String { String(cString: strerror(errno)).lowercased() }
}
