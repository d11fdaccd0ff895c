import Foundation

/// A client of the control socket on plain system calls, for what a well-behaved client never does:
/// stop reading, send megabytes without a newline, connect and vanish by the thousand.
final class RawSocket {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// The daemon ended the connection (and everything it sent before was read).
    private(set) var ended = false

    init(connectingTo path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8.prefix(bytes.count - 1))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TestFailure("connect \(path): \(reason)")
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
            let left = deadline - ContinuousClock.now
            guard !ended, left > .zero else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left / .milliseconds(1)) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            // The end, or a reset: a daemon that closes with our unsent bytes in its buffer resets.
            guard count > 0 else {
                ended = true
                return nil
            }
            pending += chunk[..<count]
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
