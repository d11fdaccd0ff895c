import GuardProtocol
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One client connection's outbound lines: handed straight to its channel's event loop, with a bound on
/// how many may wait there unwritten.
///
/// A line goes to the channel's event loop as it is sent, from whichever task sends it, so a press reaches
/// the socket with one hop rather than two (to a writer task, then the loop); the guard, on libpulse's
/// thread, hands a press to a thousand subscribers and goes on to its reset without waiting for their
/// socket writes. A client that stops reading leaves its lines waiting in the channel; once `capacity`
/// wait, it is cut loose (told so, and closed). The guard and every other client go on untouched, and the
/// daemon's memory stays bounded.
///
/// The same queue serves the control socket and the HTTP listener's event streams: its `carrier` says
/// how the bytes go on the connection, and the `SubscriberHub` sends each kind what it reads.
final class ClientQueue: Sendable {
    /// What a connection carries a client's lines in.
    enum Carrier: Sendable {
        /// The control socket: the lines themselves.
        case socket
        /// An HTTP event stream whose response head is written: each line framed as an event
        /// (`EventStreamFrame`), as the response's body.
        case eventStream
    }

    /// Room for live lines beyond a whole replay of the press history (with devices, their releases too): replies, state lines and presses
    /// that a client still reading takes in time. With the socket's own buffer in front of them, a client
    /// that stopped reading is cut loose within 3,000 presses (with the default history of 1,024).
    static let headroom = 256

    private enum State {
        /// The connection takes lines; `waiting` were sent and are not yet written to the socket.
        case open(waiting: Int)
        /// The connection closed, or the client was cut loose: no line goes out any more.
        case closed
    }

    let carrier: Carrier
    private let channel: Channel
    private let capacity: Int
    private let state = NIOLockedValueBox(State.open(waiting: 0))

    init(channel: Channel, capacity: Int, carrier: Carrier = .socket) {
        self.channel = channel
        self.capacity = capacity
        self.carrier = carrier
        channel.closeFuture.whenComplete { [self] _ in state.withLockedValue { $0 = .closed } }
    }

    /// What became of a line sent.
    enum Delivery: Equatable {
        /// On its way to the client.
        case queued
        /// Too many lines wait unwritten: the client is cut loose (told so, and closed), the line dropped.
        case cutLoose
        /// The connection was closed, or cut loose before: nothing to deliver to.
        case gone
    }

    /// Sends a line (for an event stream: an event).
    @discardableResult
    func send(_ line: ByteBuffer) -> Delivery {
        let delivery = state.withLockedValue { state -> Delivery in
            guard case .open(let waiting) = state else { return .gone }
            guard waiting < capacity else {
                state = .closed
                return .cutLoose
            }
            state = .open(waiting: waiting + 1)
            return .queued
        }
        switch delivery {
        case .queued:
            channel.eventLoop.execute { [self] in
                write(line).whenComplete { [self] _ in
                    state.withLockedValue { if case .open(let waiting) = $0 { $0 = .open(waiting: waiting - 1) } }
                }
            }
        case .cutLoose:
            channel.eventLoop.execute { [self] in
                let farewell = ByteBuffer(line: ErrorMessage(RequestError(.tooSlow, "too many unread lines; disconnecting")))
                _ = write(carrier == .socket ? farewell : EventStreamFrame.event(line: farewell))
                channel.close(promise: nil)
            }
        case .gone: break
        }
        return delivery
    }

    /// Closes the connection once every line sent so far is written.
    func finish() {
        linesSentSoFar().whenComplete { [channel] _ in channel.close(promise: nil) }
    }

    /// Returns once every line sent so far is written or the client has gone; closes the connection if
    /// the task is cancelled first (the daemon shutting down).
    func drain() async {
        await wait(for: linesSentSoFar())
    }

    /// Completes once every line sent so far is written, or failed with the connection: an empty write
    /// behind them, handed over the same way, as SwiftNIO completes a channel's writes in order.
    private func linesSentSoFar() -> EventLoopFuture<Void> {
        channel.eventLoop.flatSubmit { [self] in write(ByteBuffer()) }
    }

    /// Writes `bytes` as the carrier carries them; on the channel's event loop. (An empty body part
    /// writes no chunk: NIOHTTP1's encoder passes it through as it is.)
    private func write(_ bytes: ByteBuffer) -> EventLoopFuture<Void> {
        switch carrier {
        case .socket: channel.writeAndFlush(bytes)
        case .eventStream: channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(bytes)))
        }
    }

    /// Returns once the client has gone; closes the connection if the task is cancelled first.
    func untilClosed() async {
        await wait(for: channel.closeFuture)
    }

    private func wait(for future: EventLoopFuture<Void>) async {
        await withTaskCancellationHandler {
            _ = try? await future.get()
        } onCancel: { [channel] in
            channel.close(promise: nil)
        }
    }
}
