import NIOCore
import Synchronization

/// One client connection's outbound lines, in a bounded queue drained by that connection's writer.
///
/// A client that stops reading fills only its own queue; once it is full the client is cut loose. The
/// guard and every other client go on untouched, and the daemon's memory stays bounded.
final class ClientQueue: Sendable {
    /// Room for live lines beyond a whole replay of the press history: replies, state lines and presses
    /// that a client still reading takes in time. With the socket's own buffers, a client that stopped
    /// reading is cut loose some 1,700 presses later (measured with the default history of 1,024).
    static let headroom = 256

    let lines: AsyncStream<ByteBuffer>
    private let continuation: AsyncStream<ByteBuffer>.Continuation
    private let overflow = Atomic<Bool>(false)
    private let cutLoose: @Sendable () -> Void

    /// `cutLoose` runs once if the queue overflows: the writer is then stuck behind the client's full
    /// socket, so it cannot notice by itself.
    init(capacity: Int, cutLoose: @escaping @Sendable () -> Void) {
        (lines, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingOldest(capacity))
        self.cutLoose = cutLoose
    }

    /// Queues a line; false when the client is gone or was just cut loose for not reading.
    @discardableResult
    func send(_ line: ByteBuffer) -> Bool {
        switch continuation.yield(line) {
        case .enqueued: return true
        case .dropped:
            if !overflow.exchange(true, ordering: .relaxed) {
                continuation.finish()
                cutLoose()
            }
            return false
        case .terminated: return false
        @unknown default: return false
        }
    }

    /// Ends the queue; the writer sends what is queued, then stops.
    func finish() { continuation.finish() }
}
