import GuardProtocol
import VolumeGuardCore

/// A command the daemon runs on a press: `[[action]]` in the config file.
///
/// The command is an argument vector, run without a shell, so a sink name or anything else in the press
/// can never be taken for shell syntax; the press reaches it in environment variables instead. An
/// action that wants a shell says so (`shell = true`) and gets `/bin/sh -c`.
public struct Action: Hashable, Sendable, Codable {
    /// For the log: the config's `name`, else the program's (`env` for `/usr/bin/env`).
    public var name: String
    /// The program and its arguments.
    public var command: [String]
    /// The presses it runs on.
    public var directions: Set<Direction>
    /// How long it may run before its whole process group is killed.
    public var timeout: Duration

    public static let defaultTimeout: Duration = .seconds(10)

    /// What is wrong with a timeout in seconds, or nil. An hour is enough for anything a key should
    /// start; what needs longer should be started as a service, not run.
    public static func problem(timeout seconds: Double) -> String? {
        (0.1...3600).contains(seconds) ? nil : "must be between 0.1 and 3600 (seconds)"
    }

    public init(name: String? = nil, command: [String], on directions: Set<Direction> = Set(Direction.allCases), timeout: Duration = Self.defaultTimeout) {
        precondition(!command.isEmpty, "an action runs a program")
        self.name = name ?? command[0].split(separator: "/").last.map(String.init) ?? command[0]
        self.command = command
        self.directions = directions
        self.timeout = timeout
    }

    /// An action that runs `script` with `/bin/sh -c`.
    public init(name: String? = nil, shell script: String, on directions: Set<Direction> = Set(Direction.allCases), timeout: Duration = Self.defaultTimeout) {
        self.init(name: name ?? "sh", command: ["/bin/sh", "-c", script], on: directions, timeout: timeout)
    }

    /// The press, as the variables the command finds in its environment.
    public static func environment(for press: Press) -> [String: String] {
        [
            "VOLUME_GUARD_SEQ": String(press.seq),
            "VOLUME_GUARD_DIRECTION": press.direction.rawValue,
            "VOLUME_GUARD_COUNT": String(press.count),
            "VOLUME_GUARD_SINK": press.sink,
        ]
    }
}
