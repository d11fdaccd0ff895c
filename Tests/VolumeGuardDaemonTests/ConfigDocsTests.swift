import Foundation
import GuardSettings
import Testing

@testable import GuardConfig

/// Each key of the config file is described once, where it is declared: `Setting.help` in
/// `Options.settings`, and `Action.keys`. `run --help` shows those words for the flags; these tests keep
/// volume-guard(5) and the example config/config.toml in step with the declarations.
@Suite("The config file's documentation")
struct ConfigDocsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let manualPage = repository.appendingPathComponent("docs/man/volume-guard.5")
    static let example = repository.appendingPathComponent("config/config.toml")

    @Test("volume-guard(5) describes every key in the words of its declaration")
    func manualPageIsGenerated() throws {
        let page = try String(contentsOf: Self.manualPage, encoding: .utf8)
        let generated = try ManualPage.regenerated(page)
        if generated != page, ProcessInfo.processInfo.environment["VOLUME_GUARD_WRITE_MANUAL"] == "1" {
            try generated.write(to: Self.manualPage, atomically: true, encoding: .utf8)
            return
        }
        guard generated != page else { return }
        let written = page.split(separator: "\n", omittingEmptySubsequences: false)
        let made = generated.split(separator: "\n", omittingEmptySubsequences: false)
        let line = zip(written, made).enumerated().first { $1.0 != $1.1 }?.offset ?? min(written.count, made.count)
        Issue.record(
            """
            docs/man/volume-guard.5 does not describe the keys as Options.settings and Action.keys do: its line \(line + 1) is \
            "\(line < written.count ? written[line] : "")", not "\(line < made.count ? made[line] : "")". \
            VOLUME_GUARD_WRITE_MANUAL=1 swift test --filter ConfigDocsTests rewrites its generated parts.
            """)
    }

    @Test("config/config.toml has an example of every key, and uncommented they make a valid file")
    func exampleHasEveryKey() throws {
        let examples = try Self.examples()
        for setting in Options.settings {
            #expect(examples[setting.key] != nil, "config/config.toml has no line \"# \(setting.key) = ...\"")
        }
        let uncommented = Options.settings.compactMap { examples[$0.key] }.joined(separator: "\n")
        let options = try ConfigFile.parse(uncommented, path: "config/config.toml, uncommented")
        #expect(options.problems.isEmpty)
        let text = try String(contentsOf: Self.example, encoding: .utf8)
        let actions = text[text.range(of: "[[action]]")!.lowerBound...]
        for (key, _) in Action.keys {
            #expect(actions.contains("\n\(key) = ") || actions.contains("\n# \(key) = "), "config/config.toml's actions never set \(key)")
        }
    }

    @Test("A key needs a restart exactly when a reload keeps its old value")
    func needsRestart() throws {
        // With a listener, so that a change of its origins shows.
        let base = Options(http: "1")
        let running = DaemonConfiguration(base, environment: [:])
        for (key, line) in try Self.examples() {
            let options = base.overridden(by: try ConfigFile.parse(line, path: "config.toml"))
            let changed = DaemonConfiguration(options, environment: [:]).restartOnlyChanges(from: running)
            #expect(changed == (Options.setting(key).needsRestart ? [key] : []), "\(line)")
        }
    }

    /// The example line of each setting in config/config.toml (`# step = 5`), uncommented, by key: those
    /// before its actions.
    static func examples() throws -> [String: String] {
        let keys = Set(Options.settings.map(\.key))
        var examples: [String: String] = [:]
        let text = try String(contentsOf: example, encoding: .utf8)
        let settings = text[..<(text.range(of: "\n[[action]]")?.lowerBound ?? text.endIndex)]
        for line in settings.split(separator: "\n") where line.hasPrefix("# ") {
            let uncommented = String(line.dropFirst(2))
            guard let key = uncommented.split(separator: " ").first.map(String.init), keys.contains(key), uncommented.hasPrefix("\(key) = ")
            else { continue }
            examples[key] = uncommented
        }
        return examples
    }
}

/// The parts of volume-guard(5) made from the declarations: the entries of KEYS and the keys of ACTIONS,
/// each between a `.\" BEGIN name` and a `.\" END name` line of the page, which the rest is written around.
enum ManualPage {
    struct MissingMarker: Error, CustomStringConvertible {
        let marker: String
        var description: String { "docs/man/volume-guard.5 has no line \(marker)" }
    }

    /// `page` with its generated parts made anew.
    static func regenerated(_ page: String) throws -> String {
        var lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (name, body) in [("keys", keys), ("action keys", actionKeys)] {
            let begin = #".\" BEGIN "# + name
            let end = #".\" END "# + name
            guard let first = lines.firstIndex(where: { $0.hasPrefix(begin) }) else { throw MissingMarker(marker: begin) }
            guard let last = lines[first...].firstIndex(of: end) else { throw MissingMarker(marker: end) }
            lines.replaceSubrange((first + 1)..<last, with: body)
        }
        return lines.joined(separator: "\n")
    }

    /// One tagged paragraph per setting: its key, its TOML type and its flags, then its help.
    static var keys: [String] {
        Options.settings.flatMap { setting in
            let flag = "\\fB\(roffLiteral("--" + setting.key))\\fR"
            let (type, flags): (String, String) =
                switch setting.kind {
                case .text, .choice: ("string", flag)
                case .number(let unit): ("number, \(unit)", flag)
                case .whole(let unit): (unit.map { "whole number, \($0)" } ?? "whole number", flag)
                case .bool: ("boolean", flag + ", \\fB\(roffLiteral("--no-" + setting.key))\\fR")
                case .list: ("list of strings", flag + ", repeated")
                }
            let restart = setting.needsRestart ? " Read when the daemon starts: a change needs a restart." : ""
            return [".TP", "\\fB\(roffLiteral(setting.key))\\fR (\(type); \(flags))", roff(setting.help + restart)]
        }
    }

    /// One tagged paragraph per key of an `[[action]]`.
    static var actionKeys: [String] {
        Action.keys.flatMap { key, help in [".TP", ".B \(roffLiteral(key))", roff(help)] }
    }

    /// A help text as a line of roff: `backquoted` text in bold, written as is and never hyphenated.
    static func roff(_ text: String) -> String {
        let parts = text.replacingOccurrences(of: "\\", with: "\\e").split(separator: "`", omittingEmptySubsequences: false)
        let line = parts.enumerated().map { index, part in
            index.isMultiple(of: 2) ? String(part) : "\\fB\\%\(roffLiteral(String(part)))\\fR"
        }.joined()
        return line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }

    /// Text to be written as is: its hyphens are minus signs (a flag, a path), not hyphens to be set.
    static func roffLiteral(_ text: String) -> String {
        text.replacingOccurrences(of: "-", with: "\\-")
    }
}
