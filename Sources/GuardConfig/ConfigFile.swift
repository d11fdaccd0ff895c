import GuardProtocol
import GuardSettings
import Logging
import SystemPackage
import TOMLKit
import VolumeGuardCore

/// The config file, `$XDG_CONFIG_HOME/volume-guard/config.toml`: TOML, every key optional, each also a
/// flag of `volume-guard run` (flags win). `config/config.toml` is a commented example.
///
/// Anything it does not know is an error, not a warning: a misspelt key that is silently ignored
/// leaves the user wondering why the setting does nothing.
public struct ConfigFile: Sendable {
    public let path: String
    /// Whether the file was asked for by name (`--config`): then it must exist.
    public let required: Bool
    /// Where its text is parsed.
    public let parser: Parser

    public init(path: String, required: Bool = false, parser: Parser = .inProcess) {
        self.path = path
        self.required = required
        self.parser = parser
    }

    /// `$XDG_CONFIG_HOME/volume-guard/config.toml` (`~/.config/...` when unset).
    public static func standardPath(environment: [String: String]) -> String {
        environment.configHome + "/volume-guard/config.toml"
    }

    /// The file's options. A file that does not exist sets nothing, unless it is `required`: then, as for
    /// one that cannot be read, is not one to read (`contents(of:on:)`), holds what no text does
    /// (`text(of:path:)`) or is wrong, a `ConfigError`. An empty file (`/dev/null`) sets nothing.
    public func read(_ occasion: Occasion = .start) throws(ConfigError) -> Options {
        guard let bytes = try Self.bytes(at: path, on: occasion, required: required) else { return Options() }
        return try parse(text: Self.text(of: bytes, path: path))
    }

    /// Reads `text` as the file's contents, where its `parser` says: what `learn --write` checks before it
    /// writes a file.
    public func parse(text: String) throws(ConfigError) -> Options {
        switch parser {
        case .inProcess: try Self.parse(text, path: path)
        case .child(let executable): try Self.parseInChild(text, path: path, executable: executable)
        }
    }

    /// The keys of a file's top level: every setting's, and `action`.
    static let keys = Options.settings.map(\.key) + ["action"]
    static let actionKeys = Action.keys.map(\.key)

    /// Reads `text` as a config file named `path` (for the messages).
    public static func parse(_ text: String, path: String) throws(ConfigError) -> Options {
        // Again here, for a text that did not come through `read` (`learn`'s): toml++ must never see a NUL.
        if let flaw = TextFlaw.first(in: text.utf8) { throw flaw.error(path: path) }
        switch TOMLPrescan.check(text) {
        case .tooDeep(let line):
            throw ConfigError(
                path: path, line: line, message: "nests tables or arrays more than \(TOMLPrescan.limit) levels deep (a config file needs two)")
        case .keyStart(let line):
            throw ConfigError(path: path, line: line, message: "a key starts with a letter, a digit, `-`, `_` or a quote")
        case nil:
            break
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(path: path, line: error.source.begin.line, column: error.source.begin.column, message: error.description)
        } catch {
            throw ConfigError(path: path, message: "\(error)")
        }
        let lines = ConfigLines(text)
        let root = Entries(table: table, place: .root, lines: lines, path: path)
        try root.rejectUnknown(Self.keys)
        var options = Options()
        for setting in Options.settings {
            guard let raw = table[setting.key] else { continue }
            guard let value = Self.value(raw, as: setting.kind) else { throw root.error(setting.key, "must be \(setting.kind)") }
            if let problem = setting.store(value, in: &options) { throw root.error(setting.key, problem) }
        }
        if let (key, problem) = options.brokerProblem { throw root.error(key, problem) }
        if table.contains(key: "action") {
            guard let list = table["action"]?.array else { throw root.error("action", "must be a list of [[action]] tables") }
            options.actions = []
            for (offset, element) in list.enumerated() {
                let place = ConfigLines.Table.element("action", offset + 1)
                guard let actionTable = element.table else {
                    throw ConfigError(path: path, line: lines.line(of: "action", in: .root), key: "action", message: "must be a list of [[action]] tables")
                }
                options.actions?.append(try action(Entries(table: actionTable, place: place, lines: lines, path: path)))
            }
        }
        return options
    }

    /// A TOML value as a value of `kind`, if it is one.
    private static func value(_ raw: any TOMLValueConvertible, as kind: Setting.Kind) -> Setting.Value? {
        switch kind {
        case .text, .choice: raw.string.map(Setting.Value.text)
        case .number: raw.number.map(Setting.Value.number)
        case .whole: raw.int.map(Setting.Value.whole)
        case .bool: raw.bool.map(Setting.Value.bool)
        case .list:
            raw.array.flatMap { array in
                let texts = array.compactMap(\.string)
                return texts.count == array.count ? Setting.Value.list(texts) : nil
            }
        }
    }

    private static func action(_ entries: Entries) throws(ConfigError) -> Action {
        try entries.rejectUnknown(actionKeys)
        let name = try entries.value("name", as: \.string, "a string", check: Options.problem(text:))
        let timeout =
            try entries.value("timeout", as: \.number, "a number (seconds)", check: Action.problem(timeout:))
            .map(Self.duration) ?? Action.defaultTimeout
        let cooldown =
            try entries.value("cooldown", as: \.number, "a number (seconds)", check: Action.problem(cooldown:)).map(Self.duration) ?? .zero
        let (directions, keys) = try entries.presses()
        let source = try entries.value(
            "source", as: \.string, "\"sink\", \"input\" or \"client\"",
            check: { Source(rawValue: $0) == nil ? "must be \"sink\", \"input\" or \"client\"" : nil }
        ).flatMap(Source.init)
        let device = try entries.value("device", as: \.string, "a device name", check: Options.problem(text:))
        let gestures = Setting.Kind.choice(TriggerKind.allCases.map(\.rawValue)).description
        let gesture =
            try entries.value("gesture", as: \.string, gestures, check: { TriggerKind(rawValue: $0) == nil ? "must be \(gestures)" : nil })
            .flatMap(TriggerKind.init) ?? .press
        let shell = try entries.value("shell", as: \.bool, "true or false") ?? false
        guard entries.table.contains(key: "run") else {
            throw entries.error(nil, "an [[action]] needs `run`: the program and its arguments, e.g. run = [\"gphoto2\", \"--capture-image\"]")
        }
        if shell {
            let script = try entries.value("run", as: \.string, "a shell command line (with shell = true)", check: Options.problem(text:))!
            return Action(
                name: name, shell: script, on: directions, keys: keys, source: source, device: device, gesture: gesture, timeout: timeout,
                cooldown: cooldown)
        }
        let words = entries.table["run"]?.array?.map(\.string) ?? []
        let command = words.compactMap { $0 }
        guard !command.isEmpty, command.count == words.count, !command[0].isEmpty else {
            throw entries.error(
                "run", "must be a list of the program and its arguments, e.g. [\"gphoto2\", \"--capture-image\"] (or a command line with shell = true)")
        }
        return Action(
            name: name, command: command, on: directions, keys: keys, source: source, device: device, gesture: gesture, timeout: timeout,
            cooldown: cooldown)
    }

    /// Seconds as written in the file, to the millisecond.
    private static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }
}

/// One table's keys, read with errors that point at the key's line.
private struct Entries {
    let table: TOMLTable
    let place: ConfigLines.Table
    let lines: ConfigLines
    let path: String

    func error(_ key: String?, _ message: String) -> ConfigError {
        var action: Int?
        if case .element(_, let number) = place { action = number }
        let line = key.flatMap { lines.line(of: $0, in: place) } ?? lines.line(of: place)
        return ConfigError(path: path, line: line, key: key, action: action, message: message)
    }

    /// Fails on the first key (by line) that is not one of `known`.
    func rejectUnknown(_ known: [String]) throws(ConfigError) {
        let unknown = table.keys.filter { !known.contains($0) }
        guard let first = unknown.min(by: { (lines.line(of: $0, in: place) ?? .max) < (lines.line(of: $1, in: place) ?? .max) }) else { return }
        throw error(first, "unknown key; known keys: \(known.joined(separator: ", "))")
    }

    /// The value of `key` read through `type` (nil when absent), and checked by `check`.
    func value<Value>(
        _ key: String, as type: KeyPath<any TOMLValueConvertible, Value?>, _ kind: String, check: (Value) -> String? = { _ in nil }
    ) throws(ConfigError) -> Value? {
        guard let raw = table[key] else { return nil }
        guard let value = raw[keyPath: type] else { throw error(key, "must be \(kind)") }
        if let problem = check(value) { throw error(key, problem) }
        return value
    }

    /// `on`: a direction or a device's key (`KEY_ENTER`), or a list of them; every press when absent.
    func presses() throws(ConfigError) -> (directions: Set<Direction>, keys: Set<UInt16>?) {
        guard let raw = table["on"] else { return (Set(Direction.allCases), nil) }
        let names = raw.string.map { [$0] } ?? raw.array?.map(\.string) ?? []
        let directions = names.compactMap { $0.flatMap(Direction.init(rawValue:)) }
        let keys = names.compactMap { $0.flatMap(KeyNames.code) }
        guard !names.isEmpty, directions.count + keys.count == names.count else {
            throw error("on", "must be \"up\", \"down\", \"mute\", a key such as \"KEY_ENTER\", or a list of them, e.g. [\"up\", \"down\"]")
        }
        return (Set(directions), Set(keys))
    }
}

private extension TOMLValueConvertible {
    /// An integer or a float: `step = 5` means the same as `step = 5.0`.
    var number: Double? { double ?? int.map(Double.init) }
}
