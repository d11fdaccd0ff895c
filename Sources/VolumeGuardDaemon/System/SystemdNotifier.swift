import GuardSettings

#if canImport(Glibc)
import Glibc
#endif

/// Tells systemd how the service is doing (`Type=notify`): one datagram to `$NOTIFY_SOCKET` per
/// message, as sd_notify(3) sends it, without linking libsystemd. Does nothing outside systemd.
struct SystemdNotifier: Sendable {
    private let socketPath: String?

    init(environment: [String: String]) {
        socketPath = environment.nonEmpty("NOTIFY_SOCKET")
    }

    /// Sends `READY=1`, `STATUS=...`, `STOPPING=1`, `RELOADING=1`... (newline-separated assignments).
    func notify(_ message: String) {
        guard let socketPath else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // A leading "@" names a socket in the abstract namespace: a NUL byte in its place.
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        _ = message.utf8CString.withUnsafeBufferPointer { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, text.baseAddress, text.count - 1, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
    }
}
