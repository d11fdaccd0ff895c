import ArgumentParser
import GuardProtocol
import VolumeGuardClient

public struct Watch: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(abstract: "Print each press as it happens, until interrupted.")

    @OptionGroup var socket: SocketOptions

    @Option(
        help: ArgumentHelp(
            "First print the presses after this seq that the daemon still has (e.g. the last one a previous watch printed).",
            valueName: "seq"
        ))
    var since: UInt64?

    @Flag(help: "Print the daemon's raw JSON lines.")
    var json = false

    public func run() async throws {
        try await talkToDaemon(at: socket.path) { client in
            try await client.withSession { session in
                try await session.send(Request(.subscribe, since: since))
                while let line = try await session.nextLine() {
                    if json {
                        printLine(line)
                        continue
                    }
                    switch ServerMessage(line: Array(line.utf8)) {
                    case .subscribed(let subscribed) where subscribed.gap == true:
                        printLine("-- some presses after #\(since ?? 0) are no longer in the daemon's history; replaying from the oldest it has")
                    case .press(let press):
                        let times = press.count > 1 ? " x\(press.count)" : ""
                        let what = Self.describe(press.direction, press.key)
                        printLine("\(press.time)  \(what)\(times)  \(press.sink ?? press.device ?? "")  #\(press.seq)")
                    case .release(let release):
                        let cause = release.cause == .keyUp ? "" : " (\(release.cause.rawValue))"
                        printLine(
                            "\(release.time)  release \(Self.describe(release.direction, release.key))  \(release.device)  held \(release.heldMilliseconds) ms\(cause)  #\(release.seq)"
                        )
                    case .gesture(let gesture):
                        let what = Self.describe(gesture.direction, gesture.key)
                        printLine("\(gesture.time)  \(gesture.gesture.rawValue) \(what)  \(gesture.presses) presses  #\(gesture.seq)")
                    case .state(let state):
                        printLine("-- \(state.state.rawValue)\(state.sink.map { " (\($0))" } ?? "")")
                    case .error(let error):
                        try fail(with: error)
                    default:
                        continue
                    }
                }
            }
        }
    }

    /// A press's key as a person reads it: the direction of a volume key, else the key's name.
    static func describe(_ direction: Direction?, _ key: String?) -> String {
        direction?.rawValue ?? key ?? "?"
    }
}
