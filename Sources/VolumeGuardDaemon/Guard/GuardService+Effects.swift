import BrokerCore
import FoundationEssentials
import GuardProtocol
import Logging
import NIOCore
import PulseBridge
import VolumeGuardCore

/// Performing what the machine decides: the audio server's connection and requests, timers, lines to the
/// subscribers, presses and gestures to the actions, the record on disk, systemd and the log.
extension GuardService {
    func perform(_ effect: GuardMachine.Effect) {
        logger.trace("effect", metadata: ["effect": "\(effect)"])
        switch effect {
        case .connect(let generation): connect(generation)
        case .closeConnection: closeConnection()
        case .dropConnection(let generation, let reason):
            // After this turn, which may run inside a callback of the connection itself.
            schedule(.lost(generation: generation, reason: reason), at: now)
        case .request(let request, let generation): issue(request, generation: generation)
        case .recordOriginals(let originals):
            // Before the writes that follow: a crash after them must find the levels they overwrite.
            do {
                try record.save(originals)
            } catch {
                logger.error("cannot record the original levels; a crash now would lose them", metadata: ["path": "\(record.path)", "error": "\(error)"])
            }
        case .watchDevices: watchDevices()
        case .stopWatchingDevices: deviceFiles.closeAll()
        case .open(let node): open(node)
        case .grab(let node): grab(node)
        case .closeNode(let node): deviceFiles.close(node)
        case .readKeys(let node): readKeys(node)
        case .publish(let press):
            logger.debug(
                "press",
                metadata: ["seq": "\(press.seq)", "press": "\(press.direction?.rawValue ?? press.key.map(KeyNames.name) ?? "")", "count": "\(press.count)"])
            let message = PressMessage(press, time: timestamp)
            noteCutLoose(hub.publish(seq: press.seq, ByteBuffer(line: message)))
            feedBroker(.outgoing(BrokerEvent(message, address: address(ofDeviceAt: message.path))))
            actions.run(for: Trigger(press))
        case .release(let release):
            logger.debug("release", metadata: ["seq": "\(release.seq)", "cause": "\(release.cause.rawValue)"])
            noteCutLoose(hub.publishRelease(seq: release.seq, ByteBuffer(line: ReleaseMessage(release, time: timestamp))))
        case .gesture(let gesture):
            logger.debug("gesture", metadata: ["gesture": "\(gesture.kind.rawValue)", "seq": "\(gesture.seq)"])
            let message = GestureMessage(gesture, time: timestamp)
            noteCutLoose(hub.publishGesture(ByteBuffer(line: message)))
            feedBroker(.outgoing(BrokerEvent(message, address: address(ofDeviceAt: message.path))))
            if let trigger = Trigger(gesture) { actions.run(for: trigger) }
        case .announce(let state): noteCutLoose(hub.announce(state).cutLoose)
        case .status(let line): notifier.notify("STATUS=\(line)")
        case .answer(let waiter): waiters.removeValue(forKey: waiter)?.resume()
        case .settleDeadline(let waiter, let due): schedule(.settleDeadline(waiter: waiter), at: due)
        case .setTimer(let due): schedule(.timerFired(due: due), at: due)
        case .retry(let generation, let delay): schedule(.retryDue(generation: generation), at: now + delay)
        case .setDeadline(let deadline): schedule(.deadlinePassed, at: deadline)
        case .log(let report): log(report)
        case .end: spawn.finish()
        }
    }

    private var timestamp: String { WireFormat.timestamp(Date()) }

    /// Subscribers that stopped reading were dropped: the machine hears how many are left.
    private func noteCutLoose(_ count: Int) {
        guard count > 0 else { return }
        for _ in 0..<count { logger.notice("subscriber cut loose: it stopped reading") }
        handle(.subscribers(hub.count))
    }

    private func log(_ report: GuardMachine.Report) {
        switch report {
        case .core(let report): logger.log(report)
        case .input(let report): log(report)
        case .state(let state): logger.info("state", metadata: ["state": "\(state.rawValue)"])
        case .unreachable(let reason, let first):
            // One warning for a run of failures, not one a second while the server stays away.
            logger.log(level: first ? .warning : .debug, "cannot reach the audio server; retrying", metadata: ["reason": "\(reason)"])
        case .lost(let reason): logger.warning("lost the audio server", metadata: ["reason": "\(reason)"])
        case .notGivenBack: logger.error("the audio server did not acknowledge the restore in time")
        }
    }

    // MARK: - The audio server

    /// Closes the current attempt's connection: the requests it cancels complete on the mainloop's next
    /// turn, as failed, and are stale by then, as is all else the attempt still reports.
    func closeConnection() {
        connection?.assumeIsolated { $0.close() }
        connection = nil
    }

    /// Starts attempt `generation`, as a child task of `run`.
    private func connect(_ generation: Int) {
        let server = configuration.server
        let fresh = PulseConnection(applicationName: "volume-guard") { [self] event in
            assumeIsolated { $0.pulse(event, from: generation) }
        }
        spawn.yield { [self] in
            do {
                try await fresh.connect(to: server)
                let info = try await fresh.serverInfo()
                await connected(fresh, generation: generation, server: "\(info.name) \(info.version)")
            } catch {
                await fresh.close()
                await handle(.connectFailed(generation: generation, reason: "\(error)"))
            }
        }
    }

    private func connected(_ fresh: PulseConnection, generation: Int, server: String) {
        guard machine.lifecycle.isCurrent(generation) else { return fresh.assumeIsolated { $0.close() } }
        connection = fresh
        logger.info("connected to the audio server", metadata: ["server": "\(server)"])
        handle(.connected(generation: generation, server: server))
    }

    /// A server event of attempt `generation`, inside libpulse's callback.
    private func pulse(_ event: PulseEvent, from generation: Int) {
        switch event {
        case .sinkChanged(let index): handle(.server(.sinkChanged(index: index), generation: generation))
        case .sinkRemoved(let index):
            logger.debug("sink removed", metadata: ["index": "\(index)"])
            handle(.server(.sinkRemoved(index: index), generation: generation))
        case .serverChanged:
            logger.debug("server changed")
            handle(.server(.serverChanged, generation: generation))
        case .sinkAdded(let index):
            logger.debug("sink added", metadata: ["index": "\(index)"])
            handle(.server(.sinkAdded(index: index), generation: generation))
        case .disconnected(let reason):
            handle(.lost(generation: generation, reason: reason))
        }
    }

    /// Makes one of the core's requests of the current connection, if there is one. It runs on the guard's
    /// mainloop, so the request is made at once; its reply comes back as an input of attempt `generation`.
    private func issue(_ request: GuardAction, generation: Int) {
        switch request {
        case .readDefaultSink:
            ask(
                generation,
                replying: { [logger] name in
                    logger.debug("default sink", metadata: ["name": "\(name ?? "-")"])
                    return .defaultSink(name)
                }
            ) { $0.requestDefaultSink($1) }
        case .readSink(let query, let ticket):
            ask(generation, replying: { .sinkRead(ticket, $0) }) { $0.requestSink(query, $1) }
        case .readSinks(let ticket):
            ask(generation, replying: { $0.map { .sinksRead(ticket, $0) } }) { $0.requestSinks($1) }
        case .setVolume(let sink, let volume, let tag):
            ask(generation, replying: { _ in .written(tag) }) { $0.setSinkVolume(index: sink, to: volume, $1) }
        case .setMute(let sink, let muted, let tag):
            ask(generation, replying: { _ in .written(tag) }) { $0.setSinkMute(index: sink, muted: muted, $1) }
        default:
            break
        }
    }

    /// Asks the current connection, if there is one, through `request`, whose completion feeds the machine
    /// the reply `event` makes of the result (nothing, for nil). libpulse calls it on the mainloop the
    /// guard runs on, in order with the server's events.
    ///
    /// The completion is made here and handed to `request`, so that `request` captures only values: a
    /// closure with an `isolated PulseConnection` parameter that captures the guard crashes Swift 6.2.3,
    /// the compiler of the arm64 build (Debian's swiftlang, built with assertions): "SIL verification
    /// failed: Should only ever be isolated to a single parameter". 6.3.1 makes the same SIL, and fails the
    /// same way when told to verify it (`-Xfrontend -sil-verify-all`).
    private func ask<Value>(
        _ generation: Int, replying event: @escaping @Sendable (Value) -> GuardEvent?,
        _ request: @Sendable (isolated PulseConnection, @escaping @Sendable (Value) -> Void) -> Void
    ) {
        let reply: @Sendable (Value) -> Void = { [self] value in
            guard let event = event(value) else { return }
            assumeIsolated { $0.handle(.server(event, generation: generation)) }
        }
        connection?.assumeIsolated { request($0, reply) }
    }
}
