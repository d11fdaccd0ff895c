import BrokerCore
import FoundationEssentials
import GuardProtocol
import GuardSettings
import Logging
import MQTTBridge
import VolumeGuardCore

/// The link to an MQTT broker (`mqtt`): presses, gestures and the state out, `pause` and `resume` in.
///
/// The broker's link is a machine of its own (`BrokerLink`), fed in the guard's turn like the guard's: a
/// press the guard publishes is queued for the broker in the same turn as for the socket's subscribers.
/// Its connection runs on a thread of its own (`BrokerConnection`), whose events reach the guard in order
/// through `brokerInbox`, tagged with the shell and attempt that made them.
extension GuardService {
    /// The daemon's start: the link `configuration` asks for, if any.
    func startBroker(_ configuration: DaemonConfiguration) {
        performSuccession(brokerSuccession.handle(.start(configuration)))
    }

    /// A reload: a link of other settings or other discovery configs replaces the one in use, once that one
    /// has stopped (`BrokerSuccession`).
    func reloadBroker(_ new: DaemonConfiguration) {
        let changes = broker.map { $0.settings != new.broker || $0.documents != Self.brokerDocuments(new) } ?? true
        performSuccession(brokerSuccession.handle(.reload(new, changes: changes)))
    }

    /// The daemon's stop: no replacement starts, and the link in use says `offline`, disconnects and ends,
    /// within `BrokerLink.stopTimeout`.
    func endBroker() async {
        performSuccession(brokerSuccession.handle(.end))
        guard let shell = broker, !shell.loop.machine.hasFinished else { return }
        await withCheckedContinuation { shell.whenFinished.append($0) }
    }

    /// Performs what the succession decided; `old` is the link that just finished.
    private func performSuccession(_ action: BrokerSuccession.Action?, replacing old: BrokerShell? = nil) {
        switch action {
        case nil: break
        case .stop(let generation):
            guard broker?.generation == generation else { return }
            feedBroker(.stop)
        case .start(let configuration, let generation):
            guard let settings = configuration.broker else { return }
            // A replacement takes the configs the old link published, to remove those it has not, and the
            // presses it did not get out (a broker away, a wrong CA).
            let shell = BrokerShell(
                generation: generation, settings: settings, node: BrokerShell.node(settings, configuration, hostName: BrokerSettings.hostName),
                removals: DiscoveryDocuments.removals(old: old?.documents ?? [], new: Self.brokerDocuments(configuration)),
                leftOver: old?.loop.machine.leftOver ?? [])
            broker = shell
            logger.info("broker", metadata: ["broker": "\(settings.address)", "topic": "\(settings.topic)"])
            feedBroker(.start)
            feedBroker(.state(brokerState))
        }
    }

    /// The discovery configs a link of `configuration` publishes.
    private static func brokerDocuments(_ configuration: DaemonConfiguration) -> [BrokerDocument] {
        configuration.broker.flatMap { BrokerShell.node($0, configuration, hostName: BrokerSettings.hostName) }.map(DiscoveryDocuments.documents) ?? []
    }

    /// The state the broker is told: the guard's, where presses come from and the devices present.
    var brokerState: BrokerState {
        let devices = machine.input.map { $0.devices.values.map(\.info.name).sorted() } ?? []
        return BrokerState(state: machine.state, sink: machine.core.guarded?.name, source: configuration.source, devices: devices)
    }

    /// The Bluetooth address of the device at `node`, while it is present.
    func address(ofDeviceAt node: String?) -> String? {
        machine.input?.devices.values.first { $0.info.node == node }?.info.address
    }

    /// Feeds the current link `event`, and performs what it decides.
    func feedBroker(_ event: BrokerLink.Event) {
        guard let shell = broker else { return }
        // The closure takes the link's number, not the shell: Swift 6.2.3, the arm64 build's, sees a race
        // in a closure that captures it.
        let generation = shell.generation
        shell.loop.handle(event, at: { now }) { action in perform(action, ofLink: generation) }
    }

    /// What a connection reported: fed to the link it belongs to, unless a reload replaced that one.
    func brokerReported(_ reported: BrokerReportedEvent) {
        logger.trace("broker event", metadata: ["event": "\(reported.event)", "attempt": "\(reported.attempt)"])
        guard let shell = broker, shell.generation == reported.generation else { return }
        let attempt = reported.attempt
        switch reported.event {
        case .connected: feedBroker(.connected(attempt: attempt))
        case .refused(let code, let reason): feedBroker(.refused(attempt: attempt, code: Int(code), reason: reason))
        case .failed(let reason, let tls): feedBroker(.failed(attempt: attempt, reason: reason, tls: tls))
        case .lost(let reason): feedBroker(.lost(attempt: attempt, reason: reason))
        case .acknowledged(let ticket):
            guard let message = shell.tickets.removeValue(forKey: ticket) else { return }
            feedBroker(.acknowledged(attempt: attempt, message: message))
        case .received(let topic, let payload):
            feedBroker(.received(attempt: attempt, topic: topic, payload: String(decoding: payload, as: UTF8.self)))
        case .closed: feedBroker(.closed(attempt: attempt))
        }
    }

    /// Performs one of the link's actions; returns what comes of it at once, for the link's next turn.
    private func perform(_ action: BrokerLink.Action, ofLink generation: Int) -> [BrokerLink.Event] {
        logger.trace("broker action", metadata: ["action": "\(action)"])
        guard let shell = broker, shell.generation == generation else { return [] }
        switch action {
        case .connect(let attempt):
            let password: String?
            do {
                password = try shell.settings.passwordFile.map(PasswordFile.read)
            } catch {
                return [.failed(attempt: attempt, reason: "\(error)", tls: false)]
            }
            let inbox = brokerInbox
            let connection = BrokerConnection(clientID: shell.settings.clientID) { event in
                inbox.yield(BrokerReportedEvent(generation: generation, attempt: attempt, event: event))
            }
            shell.connection = connection
            shell.tickets = [:]
            connection.connect(shell.request(password: password))
        case .publish(_, let publication):
            do {
                let ticket = try shell.connection?.publish(topic: publication.topic, payload: Array(publication.payload.utf8), retain: publication.retain)
                if let ticket, let message = publication.message { shell.tickets[ticket] = message }
            } catch {
                // The connection is going: its `lost` follows, and the link sends the press again.
                logger.debug("broker publish failed", metadata: ["error": "\(error)"])
            }
        case .subscribe(_, let topics):
            do {
                try shell.connection?.subscribe(topics)
            } catch {
                logger.debug("broker subscribe failed", metadata: ["error": "\(error)"])
            }
        case .disconnect: shell.connection?.disconnect()
        case .close:
            shell.connection?.close()
            shell.connection = nil
            shell.tickets = [:]
        case .setTimer(let due):
            schedule(at: due) { guardService in
                guard guardService.broker?.generation == generation else { return }
                guardService.feedBroker(.timer)
            }
        case .command(let command):
            logger.info("broker command", metadata: ["command": "\(command.rawValue)"])
            spawn.yield { [self] in await set(paused: command == .pause) }
        case .report(let report):
            var metadata: Logger.Metadata = ["broker": "\(shell.settings.address)"]
            if let hint = report.hint { metadata["fix"] = "\(hint)" }
            logger.log(level: report.level == .warning ? .warning : .info, "\(report.text)", metadata: metadata)
        case .finished:
            for done in shell.whenFinished { done.resume() }
            shell.whenFinished = []
            // The replacement, if one waits, starts at once, so that no reload comes between the two; it is
            // a machine of its own, which this turn of the old one's does not enter.
            broker = nil
            performSuccession(brokerSuccession.handle(.finished(generation: generation)), replacing: shell)
        }
        return []
    }

    /// The link as `status` shows it.
    var brokerStatus: BrokerStatusMessage? {
        guard let shell = broker else { return nil }
        let status = shell.loop.machine.status
        let state: String
        var since: String?
        switch status.connection {
        case .off: state = "off"
        case .connecting: state = "connecting"
        case .waiting: state = "waiting"
        case .stopping: state = "stopping"
        case .connected(let at):
            state = "connected"
            since = WireFormat.timestamp(Date() - (now - at) / .seconds(1))
        }
        return BrokerStatusMessage(
            broker: "\(shell.settings.address)", state: state, since: since, queued: status.queued, inFlight: status.inFlight,
            dropped: status.dropped, error: status.lastError?.text, fix: status.lastError?.hint
        )
    }
}
