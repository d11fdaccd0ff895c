import GuardProtocol
import NIOCore

extension ByteBuffer {
    /// `message` as one protocol line, newline included, ready to queue for a client.
    init(line message: some Encodable) {
        self.init(bytes: WireFormat.line(message))
    }
}
