import FoundationEssentials
import GuardProtocol
import NIOCore

/// The subscribers and what they are owed: each press and gesture as it happens, a state line when the
/// state or the guarded sink changes, and, for one that resumes with `since`, the presses it missed.
///
/// Owned by `SinkGuard` and used only from inside it, so a subscription, its replay and the live lines
/// after it are ordered by the actor: no press falls between replay and live, none is sent twice.
struct SubscriberHub {
    /// The subscribers' queues, and whether each wants gesture lines.
    private var subscribers: [ObjectIdentifier: (queue: ClientQueue, gestures: Bool)] = [:]
    /// The latest presses, replayed to subscribers that resume with `since`.
    private var history: PressHistory
    /// The state line subscribers were last sent.
    private var announced: StateMessage?
    /// This run of the daemon, whose seqs the history holds (`SubscribedMessage.instance`).
    private let instance = UUID().uuidString.lowercased()

    init(historyCapacity: Int) {
        history = PressHistory(capacity: historyCapacity)
    }

    var count: Int { subscribers.count }

    /// Queues the `subscribed` reply and the presses after `since` still in the history, then registers
    /// `queue` for live lines. A nil `since` means live presses only.
    mutating func subscribe(_ queue: ClientQueue, id: RequestID?, since: UInt64?, gestures: Bool, lastSeq: UInt64) {
        let replay = since.map(history.replay(after:)) ?? PressHistory.Replay(lines: [], gap: false)
        queue.send(ByteBuffer(line: SubscribedMessage(id: id, lastSeq: lastSeq, instance: instance, gap: replay.gap)))
        for line in replay.lines {
            guard queue.send(line) else { return }
        }
        subscribers[ObjectIdentifier(queue)] = (queue, gestures)
    }

    /// Forgets `queue`; returns whether it was subscribed (a client may never have, or been cut loose).
    mutating func unsubscribe(_ queue: ClientQueue) -> Bool {
        subscribers.removeValue(forKey: ObjectIdentifier(queue)) != nil
    }

    /// Keeps the press for replays and sends it to every subscriber; returns how many were cut loose.
    mutating func publish(seq: UInt64, _ line: ByteBuffer) -> Int {
        history.append(seq: seq, line: line)
        return broadcast(line)
    }

    /// Sends a gesture to every subscriber that wants them; returns how many were cut loose.
    mutating func publishGesture(_ line: ByteBuffer) -> Int {
        broadcast(line, gesture: true)
    }

    /// Sends `state` if it is news: the state or the guarded sink changed. Returns whether it was sent, and
    /// how many subscribers were cut loose.
    mutating func announce(_ state: StateMessage) -> (sent: Bool, cutLoose: Int) {
        guard state != announced else { return (false, 0) }
        announced = state
        return (true, broadcast(ByteBuffer(line: state)))
    }

    /// Ends every subscription: the daemon is stopping.
    mutating func finishAll() {
        for subscriber in subscribers.values { subscriber.queue.finish() }
        subscribers = [:]
    }

    /// Queues one line for every subscriber (a gesture only for those that want gestures); one that
    /// cannot take it is dropped.
    private mutating func broadcast(_ line: ByteBuffer, gesture: Bool = false) -> Int {
        var cutLoose = 0
        for (key, subscriber) in subscribers where (subscriber.gestures || !gesture) && !subscriber.queue.send(line) {
            subscribers[key] = nil
            cutLoose += 1
        }
        return cutLoose
    }
}
