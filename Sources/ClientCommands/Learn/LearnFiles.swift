import ArgumentParser
import FoundationEssentials
import GuardConfig
import SystemPackage

/// `volume-guard learn-files`, hidden: the child that `learn` under sudo starts as the user, to read and
/// write the user's config file as the user (`UserFiles`). A `UserFiles.Request` as JSON on standard input,
/// a `UserFiles.Answer` as JSON on `ConfigFile.answerDescriptor`, a channel of its own that no loader or
/// library writes to.
public struct LearnFiles: ParsableCommand {
    public init() {}

    /// Its name, which `UserFiles` runs.
    static let name = "learn-files"

    public static let configuration = CommandConfiguration(
        commandName: name, abstract: "learn's own: reads and writes the config file as its user.", shouldDisplay: false)

    public func run() throws {
        var bytes: [UInt8] = []
        while bytes.count <= ConfigFile.sizeLimit, let line = readLine(strippingNewline: false) { bytes += Array(line.utf8) }
        let request = try JSONDecoder().decode(UserFiles.Request.self, from: Data(bytes))
        _ = try FileDescriptor(rawValue: ConfigFile.answerDescriptor).writeAll(try JSONEncoder().encode(UserFiles.answer(request)))
    }
}
