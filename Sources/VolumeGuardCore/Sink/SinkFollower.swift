/// Follows the sink to hold: the server's default, followed when it changes, or the first sink a
/// pattern picks, waited for while absent. It says how to look for the sink; the core holds it.
///
/// Servers announce a new default with a server change, but pipewire-pulse does not when its session
/// manager settles on one after a restart: with no default to hold, the follower asks again, backing off
/// to a slow pace, for as long as there is none. pipewire-pulse 0.3.65 also never tells a connection it
/// accepted in its first moments (before its session manager was up) which sink is the default, for
/// the connection's whole life: a connection that still names no default after `reconnectAfter` asks,
/// while the server has sinks, is blind, and is dropped for a fresh one (once per connection).
struct SinkFollower: Hashable, Sendable {
    /// How to look for the sink.
    enum Request: Hashable, Sendable {
        /// Ask the server which sink is the default.
        case readDefaultSink
        /// Read one sink: the default, by name, or one that appeared.
        case read(SinkQuery)
        /// Read every sink, to find the chosen one, or to learn whether the server has any.
        case readAll
        /// Ask for the default again after this long.
        case recheck(after: Duration)
        /// Ask for a fresh connection: this one may never be told the default.
        case reconnect
    }

    /// What the connection has shown while it names no default sink.
    private enum Sight: Hashable, Sendable {
        /// Nothing yet.
        case unknown
        /// Every sink was asked for, to learn whether the server has any.
        case listing
        /// The server had no sink when asked: a sink that appears is the next thing to look at.
        case noSinks
        /// The server has sinks, and this connection names no default: it may never be told one.
        case blind
        /// A fresh connection was asked for.
        case dropped
    }

    /// The first recheck's delay; each one after waits twice as long, up to `slowPace`.
    static let firstRecheck: Duration = .milliseconds(50)

    /// The pace at which the default is asked for while there is none, once the backoff reaches it: slow
    /// enough to cost nothing on a machine that has no sink for days, and it never stops, so no order of
    /// events leaves the guard waiting for good.
    static let slowPace: Duration = .seconds(2)

    /// After how many rechecks a connection that names no default is looked at for blindness (0.35 s): a
    /// session manager that is up has chosen a default by then, and told every connection that can be told.
    /// Each connection dropped in a row for blindness waits one recheck longer than the one before, up
    /// to twice as many (3.15 s), so a server that has sinks and never a default is not reconnected to in
    /// a tight loop.
    static let reconnectAfter = 3

    var selection: SinkSelection
    /// The default sink being resolved (or held): the name the server gave last.
    private var wanted: String?
    /// How often the default sink has been asked for again on this connection since there was last one
    /// to hold.
    private var rechecks = 0
    /// What this connection has shown while it names no default.
    private var sight = Sight.unknown
    /// Connections dropped in a row for blindness, since a sink was last held.
    private var dropped = 0

    init(selection: SinkSelection) {
        self.selection = selection
    }

    /// Where to look for the sink to hold.
    var seek: Request {
        selection == .defaultSink ? .readDefaultSink : .readAll
    }

    /// Asks which sink is the default, when following it (the server changed, or it is time to ask again).
    var askDefault: Request? {
        selection == .defaultSink ? .readDefaultSink : nil
    }

    /// A new connection: it is asked afresh.
    mutating func connected() {
        forget()
        rechecks = 0
        sight = .unknown
    }

    /// No reply on its way is to find the sink to hold any more (it was lost, given back, or the
    /// connection changed).
    mutating func forget() {
        wanted = nil
    }

    /// The server named its default sink: true when the core is to give back what it holds and resolve
    /// `name`; false when it is the sink held (`held`) already, or the one being resolved (a read is on
    /// its way), or the default is not followed.
    mutating func follow(_ name: String?, holding held: String?, reading: Bool) -> Bool {
        guard selection == .defaultSink else { return false }
        if let held, held == name { return false }
        if held == nil, reading, wanted == name { return false }
        wanted = name
        return true
    }

    /// Whether the sink named `name`, just read while none is held, is the one to hold.
    func picks(_ name: String) -> Bool {
        name == wanted || selection.admits(name)
    }

    /// The chosen sink among all the server has.
    func chosen(among sinks: [SinkState]) -> SinkState? {
        sinks.first { selection.admits($0.name) }
    }

    /// A sink appeared (with `index`) while there is none to hold: it may be the one waited for, a chosen
    /// one or the default. The default is asked for again rather than compared with the name last heard:
    /// servers name a default before its device exists (WirePlumber restores it by name, with no server
    /// change to follow), and pipewire-pulse offers a passing dummy sink after a restart.
    mutating func sinkAdded(_ index: UInt32) -> Request {
        switch selection {
        case .defaultSink:
            if sight != .dropped { sight = .blind }
            return .readDefaultSink
        case .matching:
            return .read(.index(index))
        }
    }

    /// Every sink the server has, listed while the default is followed: the answer to whether a
    /// connection that names no default has sinks to name.
    mutating func listed(_ sinks: [SinkState]) {
        guard selection == .defaultSink, sight == .listing else { return }
        sight = sinks.isEmpty ? .noSinks : .blind
    }

    /// There is no sink to hold (yet): how to look again, if at all. Following the default, the follower
    /// always asks something: a blind connection is dropped, and otherwise the default is asked for again.
    mutating func noSink() -> Request? {
        guard selection == .defaultSink else { return nil }
        if rechecks >= Self.reconnectAfter + min(dropped, Self.reconnectAfter) {
            switch sight {
            case .unknown:
                sight = .listing
                return .readAll
            case .blind:
                sight = .dropped
                dropped += 1
                return .reconnect
            case .listing, .noSinks, .dropped:
                break
            }
        }
        defer { rechecks += 1 }
        return .recheck(after: min(Self.firstRecheck * (1 << min(rechecks, 10)), Self.slowPace))
    }

    /// A sink is held: asking again for a default starts afresh when there is none again.
    mutating func found() {
        rechecks = 0
        dropped = 0
    }
}
