import Foundation
import GuardProtocol
import TestSupport

/// An HTTP/1.1 response as the listener sent it.
struct HTTPReply {
    var status: Int
    /// Header names in lower case.
    var headers: [String: String]
    var body: String

    /// The body as a protocol line, for JSON replies and errors.
    var message: ServerMessage? { ServerMessage(line: Array(body.utf8)) }

    /// The error code of an error body, if it is one.
    var errorCode: RequestError.Code? {
        if case .error(let error)? = message { error.code } else { nil }
    }
}

/// A client of the HTTP listener on plain system calls (`RawSocket`), so that a test can send what no
/// well-behaved client sends: a wrong `Host`, a foreign `Origin`, an endless head.
enum HTTPClient {
    /// Sends one request and reads its reply; the connection is closed after it.
    static func request(
        port: Int, _ target: String, method: String = "GET", host: String? = nil, headers: [(String, String)] = [], body: String = ""
    ) throws -> HTTPReply {
        let socket = try RawSocket(tcpPort: port)
        socket.send(
            Array(
                requestHead(
                    port: port, target, method: method, host: host, headers: headers + [("Content-Length", "\(body.utf8.count)"), ("Connection", "close")]
                ).utf8) + Array(body.utf8))
        return try readReply(socket)
    }

    /// A request's head, ready to send.
    static func requestHead(port: Int, _ target: String, method: String = "GET", host: String? = nil, headers: [(String, String)] = []) -> String {
        var lines = ["\(method) \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")"]
        if host == "" { lines.removeLast() }
        lines += headers.map { "\($0): \($1)" }
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Reads a reply's head and its body (by `Content-Length`).
    static func readReply(_ socket: RawSocket, timeout: Duration = .seconds(10)) throws -> HTTPReply {
        let (status, headers) = try readHead(socket, timeout: timeout)
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard let body = socket.read(count: length, timeout: timeout) else { throw TestFailure("no body of \(length) bytes") }
        return HTTPReply(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
    }

    static func readHead(_ socket: RawSocket, timeout: Duration = .seconds(10)) throws -> (status: Int, headers: [String: String]) {
        guard let statusLine = socket.readLine(timeout: timeout) else { throw TestFailure("no reply") }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TestFailure("not a status line: \(statusLine)") }
        var headers: [String: String] = [:]
        while let line = socket.readLine(timeout: timeout)?.trimmingCharacters(in: .init(charactersIn: "\r")), !line.isEmpty {
            let field = line.split(separator: ":", maxSplits: 1)
            headers[field[0].lowercased()] = field.count == 2 ? field[1].trimmingCharacters(in: .whitespaces) : ""
        }
        return (status, headers)
    }
}

/// One Server-Sent Event as a browser's `EventSource` would see it.
struct ServerSentEvent: Equatable {
    var event: String
    var id: String?
    var data: String
    var retry: Int?

    /// The data as a protocol line.
    var message: ServerMessage? { ServerMessage(line: Array(data.utf8)) }

    /// The line's `type` (`press`, `state`, …): events are unnamed, so this is how a page tells them apart.
    var type: String? {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8))).flatMap { ($0 as? [String: Any])?["type"] as? String }
    }

    var press: PressMessage? {
        if case .press(let press)? = message { press } else { nil }
    }
}

/// An open `GET /events`: reads the chunked body and parses its events, comments included.
final class EventStreamClient {
    let socket: RawSocket
    let status: Int
    let headers: [String: String]
    /// Body bytes read and not yet parsed into events.
    private var buffered: [UInt8] = []
    /// Comment lines seen (`: keep-alive`).
    private(set) var comments: [String] = []

    /// Opens the stream; `headers` may carry `Origin` or `Last-Event-ID`.
    init(port: Int, _ target: String = "/events", headers: [(String, String)] = []) throws {
        socket = try RawSocket(tcpPort: port)
        socket.send(Array(HTTPClient.requestHead(port: port, target, headers: headers).utf8))
        let head = try HTTPClient.readHead(socket)
        status = head.status
        self.headers = head.headers
    }

    /// Opens the stream without reading anything: a client that never reads (with a small receive buffer,
    /// so that it shows as one within a few hundred presses).
    static func neverReading(port: Int) throws -> RawSocket {
        let socket = try RawSocket(tcpPort: port, receiveBuffer: 4096)
        socket.send(Array(HTTPClient.requestHead(port: port, "/events").utf8))
        return socket
    }

    /// The next event; nil when none came within `timeout`, or the stream ended.
    func next(timeout: Duration = .seconds(10)) -> ServerSentEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = parseOne() { return event }
            guard readChunk(until: deadline) else { return nil }
        }
    }

    /// Events until one matches `condition` (that one included); nil when it does not come in time.
    func events(until condition: (ServerSentEvent) -> Bool, timeout: Duration = .seconds(20)) -> [ServerSentEvent]? {
        let deadline = ContinuousClock.now + timeout
        var seen: [ServerSentEvent] = []
        while let event = next(timeout: deadline - ContinuousClock.now) {
            seen.append(event)
            if condition(event) { return seen }
        }
        return nil
    }

    /// Whether the server ended the stream within `timeout`.
    func ends(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while readChunk(until: deadline) {}
        return socket.ended
    }

    /// Reads one chunk of the body into `buffered`; false at the end or when none came in time.
    private func readChunk(until deadline: ContinuousClock.Instant) -> Bool {
        guard let sizeLine = socket.readLine(timeout: deadline - ContinuousClock.now),
            let size = Int(sizeLine.trimmingCharacters(in: .init(charactersIn: "\r")), radix: 16), size > 0,
            let chunk = socket.read(count: size + 2, timeout: deadline - ContinuousClock.now)
        else { return false }
        buffered += chunk.dropLast(2)
        return true
    }

    /// Parses the first complete event (up to a blank line) out of `buffered`; comments are collected.
    private func parseOne() -> ServerSentEvent? {
        while let end = blankLine() {
            let block = String(decoding: buffered[..<end], as: UTF8.self)
            buffered.removeFirst(end + 2)
            var event = ServerSentEvent(event: "message", data: "")
            var fields = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments.append(String(line))
                    continue
                }
                let field = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let raw = field.count == 2 ? field[1] : ""
                let value = String(raw.hasPrefix(" ") ? raw.dropFirst() : raw)
                fields = true
                switch field[0] {
                case "event": event.event = value
                case "id": event.id = value
                case "data": event.data += event.data.isEmpty ? value : "\n" + value
                case "retry": event.retry = Int(value)
                default: break
                }
            }
            if fields { return event }
        }
        return nil
    }

    private func blankLine() -> Int? {
        guard buffered.count >= 2 else { return nil }
        for index in 0..<(buffered.count - 1) where buffered[index] == 0x0A && buffered[index + 1] == 0x0A {
            return index
        }
        return nil
    }
}

extension Daemon {
    /// The HTTP listener's port, from `status`.
    func httpPort() async throws -> Int {
        guard let address = try await status().http?.address, let port = address.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw TestFailure("status names no HTTP listener")
        }
        return port
    }
}
