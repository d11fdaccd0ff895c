import FoundationEssentials
import Glibc
import GuardProtocol
import Logging
import NIOConcurrencyHelpers
import SystemPackage

/// Log lines on standard error that read well in a terminal and in the journal: `info message key=value`.
///
/// Under systemd (`JOURNAL_STREAM` names our standard error) each line starts with a syslog priority,
/// `<6>info ...`, which journald takes for the entry's priority and strips; it stamps the time itself.
/// In a terminal a line starts with the time; piped or redirected elsewhere it is bare, as a supervisor
/// adds its own. Never colours. The level is shared by every logger of the process, so that a reload
/// can change it.
struct JournalLogHandler: LogHandler {
    /// How lines are laid out, from where standard error goes.
    enum Style: Sendable {
        case terminal
        case plain
        case journal
    }

    /// The level every handler of the process logs at; a reload sets it.
    final class Threshold: Sendable {
        private let level: NIOLockedValueBox<Logger.Level>
        init(_ level: Logger.Level) { self.level = NIOLockedValueBox(level) }
        var value: Logger.Level {
            get { level.withLockedValue { $0 } }
            set { level.withLockedValue { $0 = newValue } }
        }
    }

    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    private let style: Style
    private let threshold: Threshold
    private let write: @Sendable (String) -> Void

    init(style: Style, threshold: Threshold, write: @escaping @Sendable (String) -> Void = Self.writeToStandardError) {
        self.style = style
        self.threshold = threshold
        self.write = write
    }

    var logLevel: Logger.Level {
        get { threshold.value }
        set { threshold.value = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        if let error = event.error { all["error"] = "\(error)" }
        var line = ""
        switch style {
        case .journal: line = "<\(Self.priority(of: event.level))>"
        case .terminal: line = WireFormat.timestamp(Date()) + " "
        case .plain: break
        }
        line += "\(event.level) \(event.message)"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(Self.quoted("\(value)"))"
        }
        write(line + "\n")
    }

    /// The style for standard error in `environment`: `journal` only when `JOURNAL_STREAM` names the very
    /// stream standard error is (a shell started from a service inherits the variable, not the stream).
    static func style(environment: [String: String]) -> Style {
        if let stream = environment["JOURNAL_STREAM"], isStandardError(stream) { return .journal }
        return isatty(STDERR_FILENO) == 1 ? .terminal : .plain
    }

    /// Whether `device:inode` is standard error's.
    private static func isStandardError(_ stream: String) -> Bool {
        let parts = stream.split(separator: ":")
        var info = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// syslog's priorities, which journald reads from a `<N>` prefix.
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A value as is when it is one word, else in double quotes (logfmt), so that lines split cleanly.
    static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }) else { return value }
        let escaped = value.escapingScalars(["\\": "\\\\", "\"": "\\\"", "\n": "\\n"])
        return "\"\(escaped)\""
    }

    /// One `write(2)` per line, so that lines from several threads never interleave.
    static let writeToStandardError: @Sendable (String) -> Void = { line in
        _ = try? FileDescriptor.standardError.writeAll(line.utf8)
    }
}
