import GuardProtocol
import NIOCore
import Synchronization

/// One client on the control socket: reads request lines, answers each, and (once subscribed) forwards
/// presses. Replies and presses share the client's bounded queue, so a client that stops reading is cut
/// loose without holding anyone up. A pause it asked for `while_connected` ends when it goes away.
struct ClientSession {
    let client: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let guardService: GuardService
    /// The HTTP listener's paired clients, which `reload-pairings` reads again.
    let pairings: PairedClients
    /// This connection's number, which names the pause it may hold.
    let number: Int
    private let decoder = RequestDecoder()
    private static let connections = Atomic<Int>(0)

    init(client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, guardService: GuardService, pairings: PairedClients) {
        self.client = client
        self.guardService = guardService
        self.pairings = pairings
        self.number = Self.connections.add(1, ordering: .relaxed).newValue
    }

    func run() async {
        let queue = ClientQueue(channel: client.channel, capacity: guardService.clientQueueCapacity)
        var holdsPause = false
        try? await client.executeThenClose { inbound, _ in
            if await serve(inbound, replyingTo: queue, holdsPause: &holdsPause) {
                // A subscriber that only half-closed (`echo '{"cmd":"subscribe"}' | nc -U`) keeps
                // receiving presses until it goes away.
                await queue.untilClosed()
            } else {
                // Anyone else is done once its replies are out.
                await queue.drain()
            }
        }
        await guardService.unsubscribe(queue)
        if holdsPause { await guardService.holderLeft(number) }
    }

    /// Answers request lines until the client stops sending; returns whether it subscribed.
    private func serve(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, replyingTo queue: ClientQueue, holdsPause: inout Bool) async -> Bool {
        var subscribed = false
        do {
            for try await line in inbound {
                switch decoder.decode(line.readableBytesView) {
                case .failure(let error):
                    queue.send(ByteBuffer(line: ErrorMessage(error)))
                case .success(let request):
                    subscribed = subscribed || request.command == .subscribe
                    if request.whileConnected == true, [.pause, .resume].contains(request.command) { holdsPause = request.command == .pause }
                    if let reply = await reply(to: request, queue: queue) { queue.send(reply) }
                }
            }
        } catch is ByteToMessageDecoderError.PayloadTooLargeError {
            let limit = WireFormat.maximumLineLength
            queue.send(ByteBuffer(line: ErrorMessage(RequestError(.lineTooLong, "a request line is at most \(limit) bytes; disconnecting"))))
            return false
        } catch {
            return false
        }
        return subscribed
    }

    /// The reply to `request`, or nil when the guard queued it itself.
    private func reply(to request: Request, queue: ClientQueue) async -> ByteBuffer? {
        switch request.command {
        case .subscribe:
            let interests = SubscriberHub.Interests(gestures: request.gestures ?? true, states: request.states ?? true)
            await guardService.subscribe(queue, id: request.id, since: request.since, interests: interests)
            return nil
        case .status:
            return ByteBuffer(line: await guardService.status(id: request.id))
        case .pause, .resume:
            let paused = request.command == .pause
            if request.whileConnected == true {
                await guardService.hold(paused: paused, holder: number)
            } else {
                await guardService.set(paused: paused)
            }
            return ByteBuffer(line: AckMessage(type: request.command == .pause ? "paused" : "resumed", id: request.id))
        case .ping:
            return ByteBuffer(line: AckMessage(type: "pong", id: request.id))
        case .version:
            return ByteBuffer(line: AckMessage(type: "version", id: request.id, version: VolumeGuardVersion.current))
        case .reloadPairings:
            do {
                return ByteBuffer(line: AckMessage(type: "pairings-reloaded", id: request.id, clients: try await pairings.reload()))
            } catch {
                return ByteBuffer(line: ErrorMessage(RequestError(.unreadable, "\(error)", id: request.id)))
            }
        }
    }
}
