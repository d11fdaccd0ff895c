/// What `learn` prints of what it will write and what comes after: the settings for the file (and the
/// action), how to write them when it does not, and the steps still to run; lines, pure, as `LearnReport`
/// is for what it heard.
struct LearnPlan {
    var path: String
    var settings: [(key: String, value: String)]
    var action: [(key: String, value: String)]?
    /// Whether learn writes the file itself (`--write`, `--setup` or a command).
    var writes: Bool
    /// The file named with `--config`, if one was.
    var named: String?
    /// Whether learn runs as root: then the command to write them is sudo's too.
    var root: Bool

    /// The settings for the file; without `writes`, the command that writes them.
    var settingLines: [String] {
        var lines = ["", "For \(path):"] + settings.map { "  \($0.key) = \($0.value)" }
        if let action { lines += ["  [[action]]"] + action.map { "  \($0.key) = \($0.value)" } }
        if !writes {
            let config = named.map { " --config \(LearnSteps.shellQuoted($0))" } ?? ""
            lines.append("To write them: \(root ? "sudo " : "")volume-guard learn --write\(config)")
        }
        return lines
    }

    /// The steps after, for `user` to run by hand, each with why.
    static func stepLines(_ steps: [LearnSteps.Step], _ facts: LearnSteps.Facts) -> [String] {
        let commands = steps.map { step in
            let (why, command) = LearnSteps.text(step, facts)
            return "  \(command)\n      # \(why)"
        }
        return ["", "Then, as \(facts.user):"] + commands + ["(`sudo volume-guard learn --setup` writes the file and does these.)"]
    }
}
