import GuardProtocol
import NIOCore

/// Splits a client's bytes into request lines, and refuses a line the moment it is longer than
/// `WireFormat.maximumLineLength`, however its bytes arrive. A client sending megabytes without a
/// newline so costs the daemon one line's worth of memory at most.
///
/// NIOExtras' `LineBasedFrameDecoder` has no limit, and `ByteToMessageHandler`'s buffer limit lets a
/// long line through when its newline comes in the same read; hence this small decoder.
struct RequestLineDecoder: NIOSingleStepByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// How many readable bytes have already been searched for a newline, so that a line arriving a few
    /// bytes at a time is not searched again from its start with every read.
    private var scanned = 0

    /// The next line, without its newline; nil until one is complete.
    mutating func decode(buffer: inout ByteBuffer) throws -> ByteBuffer? {
        let unscanned = buffer.readableBytesView.dropFirst(scanned)
        guard let newline = unscanned.firstIndex(of: 0x0A) else {
            scanned = buffer.readableBytes
            guard scanned <= WireFormat.maximumLineLength else { throw ByteToMessageDecoderError.PayloadTooLargeError() }
            return nil
        }
        let length = newline - buffer.readerIndex
        guard length <= WireFormat.maximumLineLength else { throw ByteToMessageDecoderError.PayloadTooLargeError() }
        scanned = 0
        defer { buffer.moveReaderIndex(forwardBy: 1) }
        return buffer.readSlice(length: length)
    }

    /// At the end of input, a last line without its newline (`printf '{"cmd":"status"}' | socat ...`) is
    /// a request all the same.
    mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> ByteBuffer? {
        if let line = try decode(buffer: &buffer) { return line }
        scanned = 0
        return buffer.readableBytes > 0 ? buffer.readSlice(length: buffer.readableBytes) : nil
    }
}
