import NIOCore

/// Splits the daemon's bytes into its lines, without their newline.
///
/// NIOExtras' `LineBasedFrameDecoder` does the same, but NIOExtras links NIOHTTP1 and its parser into
/// the executable with it, for nothing: the daemon's lines are JSON, each ended by a newline alone.
struct LineDecoder: NIOSingleStepByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// How many readable bytes have already been searched for a newline, so that a long line arriving
    /// in many reads is not searched again from its start with each.
    private var scanned = 0

    /// The next line, without its newline; nil until one is complete.
    mutating func decode(buffer: inout ByteBuffer) throws -> ByteBuffer? {
        guard let newline = buffer.readableBytesView.dropFirst(scanned).firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = buffer.readableBytes
            return nil
        }
        scanned = 0
        defer { buffer.moveReaderIndex(forwardBy: 1) }
        return buffer.readSlice(length: newline - buffer.readerIndex)
    }

    /// At the end of the connection, a line without its newline is one the daemon did not finish
    /// writing (it was killed): it ends the stream like the connection's end does, unread.
    mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> ByteBuffer? {
        try decode(buffer: &buffer)
    }
}
