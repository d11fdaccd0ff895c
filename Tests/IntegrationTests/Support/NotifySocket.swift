import Foundation
import TestSupport

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: it collects what the daemon reports.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private let lock = NSLock()
    private var collected: [String] = []

    init(in directory: String) throws {
        path = directory + "/notify.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw TestFailure("cannot bind \(path): \(errno)") }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Every message received so far, oldest first (one datagram each: `READY=1`, `STATUS=...`).
    var messages: [String] {
        lock.withLock {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard count > 0 else { break }
                collected.append(String(decoding: buffer[..<count], as: UTF8.self))
            }
            return collected
        }
    }
}
