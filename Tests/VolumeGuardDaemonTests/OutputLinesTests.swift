import Testing

@testable import VolumeGuardDaemon

@Suite("Cutting output into log lines")
struct OutputLinesTests {
    @Test func lines() {
        var lines = OutputLines()
        #expect(lines.feed(Array("one\ntw".utf8)) == ["one"])
        #expect(lines.feed(Array("o\r\nthree".utf8)) == ["two"])
        #expect(lines.finish() == "three")
        #expect(lines.finish() == nil)
    }

    @Test("A line too long is logged cut, once, and the next line is whole")
    func long() {
        var lines = OutputLines()
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: OutputLines.maximumLength * 3)
        let cut = lines.feed(long + Array("\nnext\n".utf8))
        #expect(cut.count == 2)
        #expect(cut[0] == String(repeating: "x", count: OutputLines.maximumLength) + " [cut]")
        #expect(cut[1] == "next")
    }

    @Test("A line of exactly the longest length is whole")
    func longest() {
        var lines = OutputLines()
        let longest = String(repeating: "x", count: OutputLines.maximumLength)
        #expect(lines.feed(Array((longest + "\n").utf8)) == [longest])
    }

    @Test("Invalid UTF-8 is shown, not dropped")
    func invalid() {
        var lines = OutputLines()
        #expect(lines.feed([0x61, 0xFF, 0x0A]) == ["a\u{FFFD}"])
    }
}
