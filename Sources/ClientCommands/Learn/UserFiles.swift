import FoundationEssentials
import GuardConfig
import GuardSettings

/// The user's config file, read and written as the user: in this process when it runs as the user, and
/// under sudo in a child that runs as the user (`learn-files`, this same executable, given the user's
/// uid, gid and groups), so that root opens, makes, reads and writes nothing in the user's home.
///
/// A home is the user's to arrange: any name in it may be a symlink to a file of root's, a FIFO or
/// `/dev/zero`. Whatever root opened there, it would open for the user; the user's own process can reach
/// only what the user may.
struct UserFiles {
    let file: ConfigFile
    let user: InvokingUser

    /// What the child is asked, on its standard input as JSON.
    enum Request: Codable {
        case read(path: String, required: Bool)
        case write(path: String, settings: [Entry], action: [Entry]?)
    }

    /// A key and its TOML value.
    struct Entry: Codable {
        var key: String
        var value: String
    }

    /// What the child answers, as JSON on its descriptor `ConfigFile.answerDescriptor`.
    enum Answer: Codable {
        case options(Options)
        case written(backup: String?)
        case mistake(ConfigError)
    }

    /// Long enough for a pipe's read and a parse, each of which is bounded to 10 s.
    static let deadline: Duration = .seconds(30)

    /// The file's options, as `ConfigFile.read` reads them.
    func read() throws(ConfigError) -> Options {
        let request = Request.read(path: file.path, required: file.required)
        guard user.isSudo else { return try Self.answer(request).options(path: file.path) }
        return try ask(request).options(path: file.path)
    }

    /// Writes the settings and the action as `ConfigWriter` does; returns the backup's path, if any.
    func write(_ settings: [(key: String, value: String)], action: [(key: String, value: String)]?) throws(ConfigError) -> String? {
        let entries = { (pairs: [(key: String, value: String)]) in pairs.map { Entry(key: $0.key, value: $0.value) } }
        let request = Request.write(path: file.path, settings: entries(settings), action: action.map(entries))
        guard user.isSudo else { return try Self.answer(request).backup(path: file.path) }
        return try ask(request).backup(path: file.path)
    }

    /// Does `request` in this process: the child's work, and all of it when this process is the user's.
    static func answer(_ request: Request) -> Answer {
        do throws(ConfigError) {
            switch request {
            case .read(let path, let required):
                return .options(try ConfigFile(path: path, required: required, parser: .child(executable: "/proc/self/exe")).read())
            case .write(let path, let settings, let action):
                let writer = ConfigWriter(file: ConfigFile(path: path, parser: .child(executable: "/proc/self/exe")))
                let pairs = { (entries: [Entry]) in entries.map { (key: $0.key, value: $0.value) } }
                return .written(backup: try writer.write(pairs(settings), action: action.map(pairs)))
            }
        } catch {
            return .mistake(error)
        }
    }

    /// `request` done by a child that runs as the user, in the user's environment.
    private func ask(_ request: Request) throws(ConfigError) -> Answer {
        let run: ChildRun
        do {
            run = try ChildRun(
                executable: "/proc/self/exe", arguments: ["volume-guard", LearnFiles.name],
                input: Array(try JSONEncoder().encode(request)), environment: user.environment().map { "\($0.key)=\($0.value)" },
                as: user.account, deadline: Self.deadline, answerDescriptor: ConfigFile.answerDescriptor)
        } catch {
            throw ConfigError(path: file.path, message: "cannot be reached as \(user.name): \(error)")
        }
        guard run.end == .exited(0), let answer = try? JSONDecoder().decode(Answer.self, from: Data(run.answer)) else {
            let said = String(decoding: run.output, as: UTF8.self).split(whereSeparator: \.isNewline).last.map { ": \($0)" } ?? ""
            throw ConfigError(path: file.path, message: "cannot be reached as \(user.name): the child run as \(user.name) ended \(run.end)\(said)")
        }
        return answer
    }
}

extension UserFiles.Answer {
    fileprivate func options(path: String) throws(ConfigError) -> Options {
        switch self {
        case .options(let options): return options
        case .mistake(let mistake): throw mistake
        case .written: throw ConfigError(path: path, message: "cannot be read: the child answered a write")
        }
    }

    fileprivate func backup(path: String) throws(ConfigError) -> String? {
        switch self {
        case .written(let backup): return backup
        case .mistake(let mistake): throw mistake
        case .options: throw ConfigError(path: path, message: "cannot be written: the child answered a read")
        }
    }
}
