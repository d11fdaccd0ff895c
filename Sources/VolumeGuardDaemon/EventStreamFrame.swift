import NIOCore

/// Server-Sent Events framing (the WHATWG HTML standard's `text/event-stream`): how a protocol line
/// goes out on an HTTP event stream.
///
/// Each line the socket would send becomes one event named by its `type` (`press`, `gesture`, `state`,
/// `subscribed`, `error`) whose `data:` is exactly that JSON line. Press events and the `subscribed`
/// event carry an `id:` (`StreamPosition`), which a browser's `EventSource` sends back as
/// `Last-Event-ID` when it reconnects; the other events leave the last id as it was.
enum EventStreamFrame {
    /// How long a browser waits before it reconnects, in milliseconds (`retry:`); its own default is
    /// a few seconds.
    static let reconnectDelay = 1000

    /// A comment line, which `EventSource` ignores: written every `heartbeatInterval` so that a
    /// connection whose other end is gone is noticed (the write fails) and not kept forever.
    static let heartbeat = ByteBuffer(string: ": keep-alive\n\n")
    static let heartbeatInterval: TimeAmount = .seconds(15)

    /// `line` (one JSON object and its newline) as an event of type `type`.
    static func event(_ type: String, id: StreamPosition? = nil, retry: Bool = false, line: ByteBuffer) -> ByteBuffer {
        var frame = ByteBuffer()
        frame.reserveCapacity(line.readableBytes + 96)
        if retry { frame.writeString("retry: \(reconnectDelay)\n") }
        frame.writeString("event: \(type)\n")
        if let id { frame.writeString("id: \(id)\n") }
        frame.writeString("data: ")
        frame.writeImmutableBuffer(line)
        frame.writeString("\n")
        return frame
    }
}
