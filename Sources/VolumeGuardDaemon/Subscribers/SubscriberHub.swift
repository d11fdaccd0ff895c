import FoundationEssentials
import GuardProtocol
import NIOCore

/// The subscribers and what they are owed: each press and gesture as it happens, a state line when the
/// state or the guarded sink changes, and, for one that resumes with `since`, the presses it missed
/// with their releases.
///
/// Owned by `GuardService` and used only from inside it, so a subscription, its replay and the live lines
/// after it are ordered by the actor: no press falls between replay and live, none is sent twice.
/// Socket clients and HTTP event streams are subscribers alike: each line is made once, framed once as
/// an event, and each queue gets the form its `carrier` carries.
struct SubscriberHub {
    /// What a subscriber asked for besides presses.
    struct Interests: Hashable, Sendable {
        var gestures = true
        var states = true
    }

    /// The kinds of line a subscriber may be sent.
    fileprivate enum Kind {
        case press, release, gesture, state
    }

    /// The subscribers' queues, and what each wants.
    private var subscribers: [ObjectIdentifier: (queue: ClientQueue, interests: Interests)] = [:]
    /// The latest presses and releases, replayed to subscribers that resume with `since`.
    private var history: PressHistory
    /// The state line subscribers were last sent.
    private var announced: StateMessage?
    /// This run of the daemon, whose seqs the history holds (`SubscribedMessage.instance`).
    private let instance = UUID().uuidString.lowercased()

    init(historyCapacity: Int) {
        history = PressHistory(capacity: historyCapacity)
    }

    var count: Int { subscribers.count }

    /// How many subscribers are HTTP event streams.
    var eventStreams: Int { subscribers.values.count { $0.queue.carrier == .eventStream } }

    /// Queues the `subscribed` reply and the presses after `since` still in the history, with their
    /// releases, then registers `queue` for live lines. A nil `since` means live lines only. Socket clients
    /// and event streams get the same replay, by the history's one rule (a `since` at or beyond `lastSeq`
    /// is owed nothing).
    /// An `EventSource` cannot start again from 0 when the daemon restarted, as a socket client does on a
    /// new `instance`: for an event stream, a `since` beyond `lastSeq` (which only another run can have
    /// given) is taken as 0. An event stream also gets the current state right after `subscribed` (if it
    /// wants states), so that a page knows at once whether the daemon is paused; a socket client asks
    /// `status` for it.
    mutating func subscribe(_ queue: ClientQueue, id: RequestID?, since: UInt64?, interests: Interests, lastSeq: UInt64) {
        let since = queue.carrier == .eventStream ? since.map { $0 > lastSeq ? 0 : $0 } : since
        let replay = since.map(history.replay(after:)) ?? .none
        let reply = ByteBuffer(line: SubscribedMessage(id: id, lastSeq: lastSeq, instance: instance, gap: replay.gap))
        if queue.carrier == .socket {
            queue.send(reply)
        } else {
            // A stream that drops during the replay resumes from where the replay began, not past it.
            queue.send(EventStreamFrame.event(id: min(since ?? lastSeq, lastSeq), retry: true, line: reply))
            if interests.states, let announced { queue.send(EventStreamFrame.event(line: ByteBuffer(line: announced))) }
        }
        for (seq, line) in replay.lines {
            guard queue.send(queue.carrier == .socket ? line : EventStreamFrame.event(id: seq, line: line)) == .queued else { return }
        }
        subscribers[ObjectIdentifier(queue)] = (queue, interests)
    }

    /// Forgets `queue`; returns whether it was subscribed (a client may never have, or been cut loose).
    mutating func unsubscribe(_ queue: ClientQueue) -> Bool {
        subscribers.removeValue(forKey: ObjectIdentifier(queue)) != nil
    }

    /// Keeps the press for replays and sends it to every subscriber; returns how many were cut loose.
    mutating func publish(seq: UInt64, _ line: ByteBuffer) -> Int {
        history.append(seq: seq, line: line)
        return broadcast(line, event: EventStreamFrame.event(id: seq, line: line), kind: .press)
    }

    /// Keeps a device key's release for replays and sends it to every subscriber, whatever it asked for
    /// besides presses; returns how many were cut loose.
    mutating func publishRelease(seq: UInt64, _ line: ByteBuffer) -> Int {
        history.appendRelease(seq: seq, line: line)
        return broadcast(line, event: EventStreamFrame.event(line: line), kind: .release)
    }

    /// Sends a gesture to every subscriber that wants them; returns how many were cut loose.
    mutating func publishGesture(_ line: ByteBuffer) -> Int {
        broadcast(line, event: EventStreamFrame.event(line: line), kind: .gesture)
    }

    /// Sends `state` if it is news: the state or the guarded sink changed. Returns whether it was sent, and
    /// how many subscribers were cut loose.
    mutating func announce(_ state: StateMessage) -> (sent: Bool, cutLoose: Int) {
        guard state != announced else { return (false, 0) }
        announced = state
        let line = ByteBuffer(line: state)
        return (true, broadcast(line, event: EventStreamFrame.event(line: line), kind: .state))
    }

    /// Ends every subscription: the daemon is stopping.
    mutating func finishAll() {
        for subscriber in subscribers.values { subscriber.queue.finish() }
        subscribers = [:]
    }

    /// Queues one line (or, for an event stream, its `event`) for every subscriber that wants its kind;
    /// one that is cut loose for not reading is dropped, and counted. One whose connection closed is left
    /// for its session to unsubscribe as it ends.
    private mutating func broadcast(_ line: ByteBuffer, event: ByteBuffer, kind: Kind) -> Int {
        var cutLoose = 0
        for (key, subscriber) in subscribers where subscriber.interests.wants(kind) {
            guard subscriber.queue.send(subscriber.queue.carrier == .socket ? line : event) == .cutLoose else { continue }
            subscribers[key] = nil
            cutLoose += 1
        }
        return cutLoose
    }
}

extension SubscriberHub.Interests {
    /// Presses and releases go to everyone; gestures and states to those that did not turn them off.
    fileprivate func wants(_ kind: SubscriberHub.Kind) -> Bool {
        switch kind {
        case .press, .release: true
        case .gesture: gestures
        case .state: states
        }
    }
}
