/// Follows the sink to hold: the server's default, followed when it changes, or the first sink a
/// pattern picks, waited for while absent. It says how to look for the sink; the core holds it.
///
/// Servers announce a new default with a server change, but pipewire-pulse does not when its session
/// manager settles on one after a restart: with no default to hold, the follower asks again a few
/// times, backing off, and then waits for events alone. pipewire-pulse 0.3.65 also never tells a client
/// that connected before its session manager was up which sink is the default, while newer clients are
/// told: when sinks appear and no default does, it asks for a fresh connection (once per connection).
struct SinkFollower: Hashable, Sendable {
    /// How to look for the sink.
    enum Request: Hashable, Sendable {
        /// Ask the server which sink is the default.
        case readDefaultSink
        /// Read one sink: the default, by name, or one that appeared.
        case read(SinkQuery)
        /// Read every sink, to find the chosen one.
        case readAll
        /// Ask for the default again after this long.
        case recheck(after: Duration)
        /// Ask for a fresh connection: this one may never be told the default.
        case reconnect
    }

    /// How often, at most, the default sink is asked for again before the follower waits for events alone:
    /// 50 ms doubling, about 13 s in all, long enough for a session manager started with the server
    /// (WirePlumber) to choose a default, which pipewire-pulse announces to no connection made before.
    static let recheckLimit = 8

    /// After how many rechecks a connection that sees sinks but no default is made anew (0.35 s): a
    /// session manager that is up has chosen by then, so this connection is one it will never tell.
    static let reconnectAfter = 3

    var selection: SinkSelection
    /// The default sink being resolved (or held): the name the server gave last.
    private var wanted: String?
    /// How often the default sink has been asked for again since there was last one to hold.
    private var rechecks = 0
    /// A sink appeared on this connection while no default sink could be found.
    private var sinksWithoutDefault = false

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
        sinksWithoutDefault = false
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
            sinksWithoutDefault = true
            return .readDefaultSink
        case .matching:
            return .read(.index(index))
        }
    }

    /// There is no sink to hold (yet): how to ask again for the default, if at all.
    mutating func noSink() -> Request? {
        guard selection == .defaultSink, rechecks < Self.recheckLimit else { return nil }
        if sinksWithoutDefault, rechecks >= Self.reconnectAfter {
            sinksWithoutDefault = false
            return .reconnect
        }
        defer { rechecks += 1 }
        return .recheck(after: .milliseconds(50 << rechecks))
    }

    /// A sink is held: asking again for a default starts afresh when there is none again.
    mutating func found() {
        rechecks = 0
    }
}
