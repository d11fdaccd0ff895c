import NIOCore

/// Server-Sent Events framing (the WHATWG HTML standard's `text/event-stream`): how a protocol line
/// goes out on an HTTP event stream.
///
/// Each line the socket would send becomes one unnamed event whose `data:` is exactly that JSON line.
/// Unnamed, so that the browser fires its default `message` event for every line: a page reads them all
/// with `EventSource.onmessage` and tells them apart by the JSON's `type`, as a socket client does.
/// Press events and the `subscribed` event carry an `id:`, a bare press seq, which `EventSource` sends
/// back as `Last-Event-ID` when it reconnects and the daemon takes as the socket's `since`; the other
/// events carry none, so they leave the browser's last id as it was.
enum EventStreamFrame {
    /// How long a browser waits before it reconnects, in milliseconds (`retry:`); its own default is
    /// a few seconds.
    static let reconnectDelay = 1000

    /// A comment line, which `EventSource` ignores: written every `heartbeatInterval` so that a
    /// connection whose other end is gone is noticed (the write fails) and not kept forever.
    static let heartbeat = ByteBuffer(string: ": keep-alive\n\n")
    static let heartbeatInterval: TimeAmount = .seconds(15)

    /// `line` (one JSON object and its newline) as an event, with the press seq `id` if given.
    static func event(id: UInt64? = nil, retry: Bool = false, line: ByteBuffer) -> ByteBuffer {
        var frame = ByteBuffer()
        frame.reserveCapacity(line.readableBytes + 48)
        if retry { frame.writeString("retry: \(reconnectDelay)\n") }
        if let id { frame.writeString("id: \(id)\n") }
        frame.writeString("data: ")
        frame.writeImmutableBuffer(line)
        frame.writeString("\n")
        return frame
    }
}
