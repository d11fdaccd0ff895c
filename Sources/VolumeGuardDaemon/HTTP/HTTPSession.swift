import GuardProtocol
import GuardSettings
import Logging
import NIOCore
import NIOHTTP1
import Pairing

/// One connection to the HTTP listener: reads requests, has `HTTPRequestPolicy` decide each from its
/// head, and serves it. An event stream is a subscriber like a socket client: the same `SubscriberHub`,
/// replay and bounded `ClientQueue`, its lines framed as events. Nothing a request asks for is done
/// before its head has passed the policy, with the pairings in use then; an address that sent too many
/// wrong tokens is refused before its request is looked at (`TokenThrottle`).
struct HTTPSession {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    let connection: Connection
    let policy: HTTPRequestPolicy
    let clients: PairedClients
    let guardService: GuardService

    private var channel: any Channel { connection.channel }

    /// Serves requests until the client goes, a response closes the connection, or an event stream ends.
    func run() async {
        guard let local = channel.localAddress, var ip = local.ipAddress, let port = local.port else { return }
        // A listener on `[::]` takes IPv4 connections as mapped addresses: their Host names the IPv4 one.
        if ip.hasPrefix("::ffff:"), ip.contains(".") { ip.removeFirst("::ffff:".count) }
        let hosts = ListenerHosts(address: ListenAddress(host: ip, port: port))
        let peer = channel.remoteAddress?.ipAddress ?? "unknown"
        try? await connection.executeThenClose { inbound, _ in
            var decision: HTTPRequestPolicy.Decision?
            var forPage = false
            var keepAlive = false
            var bodyBytes = 0
            // A request refused for its body: what the client still sends is dropped.
            var draining = false
            for try await part in inbound where !draining {
                switch part {
                case .head(let head):
                    decision = decide(head, hosts: hosts, peer: peer)
                    forPage = head.uri == "/" || head.uri.hasPrefix("/?")
                    keepAlive = head.isKeepAlive
                    bodyBytes = 0
                    // A declared body over the limit is refused before it is read.
                    if case .refuse(let refusal) = decision, refusal.status == .payloadTooLarge {
                        try await refuseBody(refusal)
                        draining = true
                    }
                case .body(let buffer):
                    bodyBytes += buffer.readableBytes
                    guard bodyBytes <= HTTPRequestPolicy.bodyLimit else {
                        let error = RequestError(.bodyTooLarge, "a request body is at most \(HTTPRequestPolicy.bodyLimit) bytes")
                        try await refuseBody(.init(status: .payloadTooLarge, error: error))
                        draining = true
                        continue
                    }
                case .end:
                    guard let served = decision else { return }
                    if case .serve(.events(let since, let interests), let origin, let client) = served {
                        return try await stream(since: since, interests: interests, origin: origin, client: client)
                    }
                    try await send(await respond(to: served, keepAlive: keepAlive, forPage: forPage))
                    guard keepAlive else { return }
                }
            }
        }
    }

    /// The policy's decision for `head` from `peer`, with the pairings in use now; 429 without a look at
    /// it when `peer` sent too many wrong tokens lately, and a wrong token counted against `peer`.
    private func decide(_ head: HTTPRequestHead, hosts: ListenerHosts, peer: String) -> HTTPRequestPolicy.Decision {
        if let wait = clients.refusal(of: peer) {
            let seconds = Int((wait / .seconds(1)).rounded(.up))
            let error = RequestError(.tooManyAttempts, "too many wrong tokens came from \(peer); try again in \(seconds) s")
            return .refuse(.init(status: .tooManyRequests, error: error, retryAfter: seconds))
        }
        let decision = policy.decide(head, hosts: hosts, pairings: clients.pairings)
        if case .refuse(let refusal) = decision, refusal.error.code == .badToken { clients.failed(from: peer) }
        return decision
    }

    /// The response to a request that is not an event stream.
    private func respond(to decision: HTTPRequestPolicy.Decision, keepAlive: Bool, forPage: Bool) async -> [HTTPServerResponsePart] {
        switch decision {
        case .refuse(let refusal):
            return HTTPResponses.refusal(refusal, origin: nil, keepAlive: keepAlive, asPage: forPage)
        case .preflight(let origin, let methods, let privateNetwork):
            return HTTPResponses.options(methods: methods, origin: origin, privateNetwork: privateNetwork, keepAlive: keepAlive)
        case .options(let methods):
            return HTTPResponses.options(methods: methods, origin: nil, privateNetwork: false, keepAlive: keepAlive)
        case .serve(.status, let origin, _):
            return HTTPResponses.json(ByteBuffer(line: await guardService.status(id: nil)), origin: origin, keepAlive: keepAlive)
        case .serve(.page, _, _):
            return HTTPResponses.page(TabletPage.html, keepAlive: keepAlive)
        case .serve(.client, let origin, let client?):
            return HTTPResponses.json(ByteBuffer(line: ClientMessage(name: client.name, role: client.role)), origin: origin, keepAlive: keepAlive)
        case .serve(.press(let press), let origin, let client?):
            guard let seq = await guardService.press(press, from: client.name) else {
                let error = RequestError(.stopping, "the daemon is stopping; it takes no press")
                return HTTPResponses.refusal(.init(status: .serviceUnavailable, error: error), origin: origin, keepAlive: false)
            }
            return HTTPResponses.json(ByteBuffer(line: AckMessage(type: "pressed", id: nil, seq: seq)), origin: origin, keepAlive: keepAlive)
        case .serve(let route, let origin, _):
            let paused = route == .pause
            await guardService.set(paused: paused)
            return HTTPResponses.json(ByteBuffer(line: AckMessage(type: paused ? "paused" : "resumed", id: nil)), origin: origin, keepAlive: keepAlive)
        }
    }

    /// Subscribes the connection as an event stream and serves it until either side ends it: the client
    /// goes, it stops reading and is cut loose, or the daemon stops (its subscriptions finished).
    /// A paired client's stream counts among its own (`PairedClients.streamsPerClient`), and is closed when
    /// its token is revoked.
    private func stream(since: UInt64?, interests: SubscriberHub.Interests, origin: WebOrigin?, client: PairedClient?) async throws {
        let queue = ClientQueue(channel: channel, capacity: guardService.clientQueueCapacity, carrier: .eventStream)
        if let client {
            let refusal: HTTPRequestPolicy.Refusal? =
                switch clients.open(queue, for: client) {
                case .opened: nil
                case .full:
                    .init(
                        status: .tooManyRequests,
                        error: RequestError(
                            .tooManyStreams, "\(client.name) has \(PairedClients.streamsPerClient) event streams open, as many as a client may"),
                        retryAfter: 5)
                case .revoked: .badToken
                }
            if let refusal { return try await send(HTTPResponses.refusal(refusal, origin: origin, keepAlive: false)) }
        }
        defer { if let client { clients.closed(queue, for: client) } }
        try await send([HTTPResponses.eventStreamHead(origin: origin)])
        await guardService.subscribe(queue, id: nil, since: since, interests: interests)
        let interval = EventStreamFrame.heartbeatInterval
        let heartbeat = channel.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
            if queue.send(EventStreamFrame.heartbeat) != .queued { task.cancel() }
        }
        await queue.untilClosed()
        heartbeat.cancel()
        await guardService.unsubscribe(queue)
    }

    /// Answers a request whose body is too large while it is still coming, and ends the connection
    /// without resetting it: the answer goes out and the output is closed; what the client still sends
    /// is dropped (by `run`) until it closes, or `HTTPConnectionGuard`'s deadline passes. Closing at once, with
    /// its bytes unread, would reset the connection, and the client could lose the answer.
    private func refuseBody(_ refusal: HTTPRequestPolicy.Refusal) async throws {
        try await send(HTTPResponses.refusal(refusal, origin: nil, keepAlive: false))
        try await channel.close(mode: .output)
    }

    /// Writes `parts` in order, flushed; returns once they are written (or the connection failed).
    private func send(_ parts: [HTTPServerResponsePart]) async throws {
        try await channel.eventLoop.flatSubmit { [channel] in
            for part in parts.dropLast() { channel.write(part, promise: nil) }
            return channel.writeAndFlush(parts.last!)
        }.get()
    }
}
