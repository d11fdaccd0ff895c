/// Why an input device cannot be taken, and what the user can do about it.
///
/// The two travel together, from the errno that refused the node to the log, `status` and systemd's
/// status line: `error` short ("permission denied"), `fix` a sentence with the commands to run.
public struct DeviceProblem: Hashable, Sendable {
    public var error: String
    public var fix: String

    public init(error: String, fix: String) {
        self.error = error
        self.fix = fix
    }
}
