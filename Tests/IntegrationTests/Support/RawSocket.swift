import Foundation
import TestSupport

/// A client of the control socket on plain system calls, for what a well-behaved client never does:
/// stop reading, send megabytes without a newline, connect and vanish by the thousand.
final class RawSocket {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// The daemon ended the connection (and everything it sent before was read).
    private(set) var ended = false

    /// Connects to the HTTP listener's TCP port on loopback; with `receiveBuffer`, a kernel receive buffer
    /// that small (TCP's own can grow to megabytes before a client that stops reading shows as one).
    init(tcpPort port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        try Self.connect(descriptor, to: address, peer: "127.0.0.1:\(port)")
    }

    init(connectingTo path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8.prefix(bytes.count - 1))
        }
        try Self.connect(descriptor, to: address, peer: path)
    }

    /// Connects `descriptor` to `address` (a `sockaddr_in` or `sockaddr_un`); on failure closes it and
    /// throws, naming `peer`.
    private static func connect<Address>(_ descriptor: Int32, to address: Address, peer: String) throws {
        var address = address
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TestFailure("connect \(peer): \(reason)")
        }
    }

    deinit { close(descriptor) }

    /// Sends all of `bytes`; false if the daemon closed the connection first.
    @discardableResult
    func send(_ bytes: some Collection<UInt8>) -> Bool {
        var rest = Array(bytes)[...]
        while !rest.isEmpty {
            let sent = rest.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            rest = rest.dropFirst(sent)
        }
        return true
    }

    /// Half-closes the connection: the daemon sees the end of input, and can still answer.
    func shutdownSending() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    @discardableResult
    func send(line: String) -> Bool {
        send(Array((line + "\n").utf8))
    }

    /// The next line (without its newline); nil at the end of the connection (`ended`), or when nothing
    /// came within `timeout`.
    func readLine(timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            guard receive(until: deadline) else { return nil }
        }
    }

    /// The next `count` bytes; nil at the end of the connection, or when they did not come within `timeout`.
    func read(count: Int, timeout: Duration = .seconds(10)) -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while pending.count < count {
            guard receive(until: deadline) else { return nil }
        }
        defer { pending.removeFirst(count) }
        return Array(pending.prefix(count))
    }

    /// Waits for more bytes until `deadline`; false at the end of the connection, or when none came.
    private func receive(until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - ContinuousClock.now
            guard !ended, left > .zero else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left / .milliseconds(1)) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            // The end, or a reset: a daemon that closes with our unsent bytes in its buffer resets.
            guard count > 0 else {
                ended = true
                return false
            }
            pending += chunk[..<count]
            return true
        }
    }

    /// Every line until the daemon ends the connection; nil if it does not end within `timeout`.
    func readToEnd(timeout: Duration = .seconds(10)) -> [String]? {
        let deadline = ContinuousClock.now + timeout
        var lines: [String] = []
        while let line = readLine(timeout: deadline - ContinuousClock.now) {
            lines.append(line)
        }
        return ended ? lines : nil
    }
}
