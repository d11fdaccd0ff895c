import ArgumentParser
import FoundationEssentials
import GuardConfig
import GuardSettings
import SystemPackage

/// `volume-guard config`: reads the config file as `run` and a reload do: the daemon reads it again
/// in-process, through the same parser (`ConfigFile.read`), so this check and a reload never disagree.
public struct CheckConfig: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the config file: exit 0 when it is right, 2 naming the line and key of a mistake.",
        discussion: "Check a file before `systemctl --user reload volume-guard`: a reload refuses a file with a mistake."
    )

    @OptionGroup var configFile: ConfigFileOptions

    @Flag(help: "Print the settings the file makes, as JSON.")
    var json = false

    /// The child that parses for every command (`ConfigFile.Parser.child`): the text on standard input,
    /// a `ConfigFile.ParseOutcome` as JSON on `ConfigFile.answerDescriptor`.
    @Flag(help: .hidden)
    var parseStdin = false

    public func run() throws {
        if parseStdin { return try Self.parseStandardInput() }
        let options = try configFile.options()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            print(String(decoding: try encoder.encode(options), as: UTF8.self))
        } else {
            let path = configFile.file.path
            print(FileManager.default.fileExists(atPath: path) ? "\(path): ok" : "\(path): none; the defaults apply")
        }
    }

    /// Parses the text on standard input in this process and writes the outcome for the parent, which
    /// names the file in a mistake: the child is given no path.
    private static func parseStandardInput() throws {
        var bytes: [UInt8] = []
        while bytes.count <= ConfigFile.sizeLimit, let line = readLine(strippingNewline: false) { bytes += Array(line.utf8) }
        let outcome: ConfigFile.ParseOutcome
        do {
            outcome = .options(try ConfigFile.parse(String(decoding: bytes, as: UTF8.self), path: ""))
        } catch {
            outcome = .mistake(error)
        }
        _ = try FileDescriptor(rawValue: ConfigFile.answerDescriptor).writeAll(try JSONEncoder().encode(outcome))
    }
}
