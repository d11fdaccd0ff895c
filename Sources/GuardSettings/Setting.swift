/// One setting of `volume-guard run`: its key in the config file (and, after `--`, its flag), where
/// `Options` keeps it, the kind of value it takes, its limits, and what it means.
///
/// Each is declared once, in `Options.settings`: the config file reads its keys through that list, the
/// command line's values are checked by it, and flags are layered over the file by it. Its `help` is the
/// one description of the setting: `run --help` shows it for the flag, and volume-guard(5) for the key
/// (a test keeps docs/man/volume-guard.5 equal to it).
public struct Setting: Sendable {
    /// The kinds of value a setting takes, as a config file writes them.
    public enum Kind: Sendable, CustomStringConvertible {
        /// Text, described for a user (`a path`).
        case text(String)
        /// A number, integer or not, in `unit`.
        case number(unit: String)
        /// A whole number, in `unit` if it has one.
        case whole(unit: String?)
        case bool
        /// One of these words.
        case choice([String])
        /// A list of text, described for a user (`a list of origins`).
        case list(String)

        /// What a value of this kind is, after "must be".
        public var description: String {
            switch self {
            case .text(let what): what
            case .number(let unit): "a number (\(unit))"
            case .whole(let unit): "a whole number" + (unit.map { " (\($0))" } ?? "")
            case .bool: "true or false"
            case .choice(let words): "one of " + words.map { "\"\($0)\"" }.joined(separator: ", ")
            case .list(let what): what
            }
        }
    }

    /// A value as a source gives it, of the kind the setting takes.
    public enum Value: Sendable {
        case text(String)
        case number(Double)
        case whole(Int)
        case bool(Bool)
        case list([String])
    }

    public let key: String
    public let kind: Kind
    /// What the setting means, with its default and limits: a paragraph of plain text, in which
    /// `backquotes` mark what is written as is (a value, a key, a command), set in bold in the manual.
    public let help: String
    /// Whether the daemon reads it only when it starts: a reload keeps the value in use and logs that
    /// the change needs a restart (`DaemonConfiguration.restartOnlyChanges`).
    public let needsRestart: Bool
    private let store: @Sendable (Value, inout Options) -> String?
    private let problem: @Sendable (Options) -> String?
    private let takeOver: @Sendable (Options, inout Options) -> Void

    private init<T>(
        _ key: String, _ path: WritableKeyPath<Options, T?> & Sendable, _ kind: Kind, help: String, needsRestart: Bool,
        read: @escaping @Sendable (Value) -> T?, check: @escaping @Sendable (T) -> String?
    ) {
        self.key = key
        self.kind = kind
        self.help = help
        self.needsRestart = needsRestart
        store = { value, options in
            guard let value = read(value) else { return "must be \(kind)" }
            if let problem = check(value) { return problem }
            options[keyPath: path] = value
            return nil
        }
        problem = { $0[keyPath: path].flatMap(check) }
        takeOver = { winner, options in
            if let value = winner[keyPath: path] { options[keyPath: path] = value }
        }
    }

    /// Stores `value` in `options`; returns what is wrong with it instead, if anything.
    public func store(_ value: Value, in options: inout Options) -> String? {
        store(value, &options)
    }

    /// What is wrong with the value `options` hold for this setting, if anything.
    public func problem(in options: Options) -> String? {
        problem(options)
    }

    /// Gives `options` the value `winner` has for this setting, if it has one.
    func take(from winner: Options, into options: inout Options) {
        takeOver(winner, &options)
    }

    // MARK: - The kinds

    static func text(
        _ key: String, _ path: WritableKeyPath<Options, String?> & Sendable, _ what: String, help: String, needsRestart: Bool = false,
        check: @escaping @Sendable (String) -> String? = Options.problem(text:)
    ) -> Setting {
        Setting(
            key, path, .text(what), help: help, needsRestart: needsRestart, read: { if case .text(let text) = $0 { text } else { nil } },
            check: check)
    }

    static func list(
        _ key: String, _ path: WritableKeyPath<Options, [String]?> & Sendable, _ what: String, help: String, needsRestart: Bool = false,
        check: @escaping @Sendable ([String]) -> String?
    ) -> Setting {
        Setting(
            key, path, .list(what), help: help, needsRestart: needsRestart, read: { if case .list(let list) = $0 { list } else { nil } },
            check: check)
    }

    static func number(
        _ key: String, _ path: WritableKeyPath<Options, Double?> & Sendable, unit: String, help: String,
        check: @escaping @Sendable (Double) -> String?
    ) -> Setting {
        Setting(
            key, path, .number(unit: unit), help: help, needsRestart: false,
            read: { if case .number(let number) = $0 { number } else { nil } }, check: check)
    }

    static func whole(
        _ key: String, _ path: WritableKeyPath<Options, Int?> & Sendable, unit: String?, help: String, needsRestart: Bool = false,
        check: @escaping @Sendable (Int) -> String?
    ) -> Setting {
        Setting(
            key, path, .whole(unit: unit), help: help, needsRestart: needsRestart,
            read: { if case .whole(let whole) = $0 { whole } else { nil } }, check: check)
    }

    static func bool(_ key: String, _ path: WritableKeyPath<Options, Bool?> & Sendable, help: String, needsRestart: Bool = false) -> Setting {
        Setting(
            key, path, .bool, help: help, needsRestart: needsRestart, read: { if case .bool(let bool) = $0 { bool } else { nil } },
            check: { _ in nil })
    }

    static func choice<T: RawRepresentable<String> & CaseIterable & SendableMetatype>(
        _ key: String, _ path: WritableKeyPath<Options, T?> & Sendable, help: String, needsRestart: Bool = false
    ) -> Setting {
        let kind = Kind.choice(T.allCases.map(\.rawValue))
        return Setting(
            key, path, kind, help: help, needsRestart: needsRestart, read: { if case .text(let word) = $0 { T(rawValue: word) } else { nil } },
            check: { _ in nil })
    }
}
