import Logging
import Synchronization
import Testing

@testable import VolumeGuardDaemon

/// Lines a handler wrote, for tests.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var text: String { all.joined() }
    func append(_ line: String) { lines.withLock { $0.append(line) } }

    func logger(_ style: JournalLogHandler.Style = .plain, level: Logger.Level = .debug) -> Logger {
        let threshold = JournalLogHandler.Threshold(level)
        return Logger(label: "test") { _ in JournalLogHandler(style: style, threshold: threshold, write: self.append) }
    }
}

@Suite("Log lines")
struct JournalLogHandlerTests {
    @Test("Plain: level, message, sorted key=value, quoted when needed")
    func plain() {
        let lines = LogLines()
        lines.logger().info("guarding sink", metadata: ["sink": "guard_a", "original": "65536/65536 (100.0 %)", "a": "say \"hi\""])
        #expect(lines.all == [#"info guarding sink a="say \"hi\"" original="65536/65536 (100.0 %)" sink=guard_a"# + "\n"])
    }

    @Test("Journal: a syslog priority first, which journald strips")
    func journal() {
        let lines = LogLines()
        let logger = lines.logger(.journal, level: .trace)
        for level in Logger.Level.allCases { logger.log(level: level, "x") }
        #expect(lines.all == ["<7>trace x\n", "<7>debug x\n", "<6>info x\n", "<5>notice x\n", "<4>warning x\n", "<3>error x\n", "<2>critical x\n"])
    }

    @Test("A terminal gets the time first")
    func terminal() {
        let lines = LogLines()
        lines.logger(.terminal).notice("hello")
        let line = lines.all.first ?? ""
        #expect(line.hasSuffix("Z notice hello\n"), "\(line)")
        #expect(line.first?.isNumber == true)
    }

    @Test("The level is shared: a reload changes it for every logger")
    func sharedLevel() {
        let lines = LogLines()
        let threshold = JournalLogHandler.Threshold(.info)
        let first = Logger(label: "a") { _ in JournalLogHandler(style: .plain, threshold: threshold, write: lines.append) }
        var second = Logger(label: "b") { _ in JournalLogHandler(style: .plain, threshold: threshold, write: lines.append) }
        first.debug("hidden")
        second.logLevel = .debug
        first.debug("shown")
        #expect(lines.all == ["debug shown\n"])
    }

    @Test("Journal style only when JOURNAL_STREAM names standard error itself")
    func style() {
        #expect(JournalLogHandler.style(environment: ["JOURNAL_STREAM": "1:2"]) != .journal)
        #expect(JournalLogHandler.style(environment: ["JOURNAL_STREAM": "nonsense"]) != .journal)
    }
}
