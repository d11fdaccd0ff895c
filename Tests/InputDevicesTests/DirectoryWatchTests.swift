import Foundation
import Testing

@testable import InputDevices

@Suite("The directory watch, on a fake /dev")
struct DirectoryWatchTests {
    @Test("/dev/input appearing, nodes coming, changing and going, links; other files are no change")
    func changes() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        try tree.directory("dev")
        var watch = try DirectoryWatch(devices: tree.path("dev/input"))
        defer { watch.close() }
        /// Does `change`, and expects the watch to say whether it `matters`.
        func expect(_ matters: Bool, after what: Comment, _ change: () throws -> Void) rethrows {
            try change()
            let changed = watch.drain()
            #expect(changed == matters, what)
        }

        expect(false, after: "nothing") {}
        try expect(false, after: "another device in /dev") { try tree.write("dev/tty5", "") }
        try expect(true, after: "/dev/input appearing") { try tree.directory("dev/input") }
        try expect(true, after: "a node appearing") { try tree.write("dev/input/event0", "") }
        try expect(false, after: "a node that is no event device") { try tree.write("dev/input/mouse0", "") }
        expect(true, after: "a node's permissions changing") { #expect(chmod(tree.path("dev/input/event0"), 0o640) == 0) }
        try expect(true, after: "by-id appearing") { try tree.directory("dev/input/by-id") }
        try expect(true, after: "a link appearing") { try tree.link("dev/input/by-id/usb-Remote-event-kbd", to: "../event0") }
        try expect(true, after: "a node going") { try tree.remove("dev/input/event0") }
        try expect(true, after: "/dev/input going") { try tree.remove("dev/input") }
        expect(false, after: "nothing more") {}
        try expect(true, after: "/dev/input again") { try tree.directory("dev/input") }
        try expect(true, after: "a node in the new /dev/input") { try tree.write("dev/input/event1", "") }
    }

    @Test("by-id and by-path present at the start are watched")
    func linksAtStart() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        try tree.directory("dev/input/by-path")
        var watch = try DirectoryWatch(devices: tree.path("dev/input"))
        defer { watch.close() }
        try tree.link("dev/input/by-path/platform-i8042-serio-0-event-kbd", to: "../event2")
        let changed = watch.drain()
        #expect(changed)
    }

    @Test("inotify's records: header, name padded with NULs, records one after another")
    func records() {
        var bytes: [UInt8] = []
        func append(watch: Int32, mask: UInt32, name: String, padded: Int) {
            withUnsafeBytes(of: watch.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: mask.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt32(0)) { bytes += $0 }
            withUnsafeBytes(of: UInt32(padded).littleEndian) { bytes += $0 }
            bytes += Array(name.utf8) + Array(repeating: 0, count: padded - name.utf8.count)
        }
        append(watch: 1, mask: 0x100, name: "event3", padded: 16)
        append(watch: 2, mask: 0x8000, name: "", padded: 0)
        append(watch: 1, mask: 0x200, name: "by-id", padded: 16)
        let records = bytes.withUnsafeBytes { InotifyRecord.records(in: $0) }
        #expect(
            records == [
                InotifyRecord(watch: 1, mask: 0x100, name: "event3"), InotifyRecord(watch: 2, mask: 0x8000, name: ""),
                InotifyRecord(watch: 1, mask: 0x200, name: "by-id"),
            ])
        #expect(bytes.dropLast(4).withUnsafeBytes { InotifyRecord.records(in: UnsafeRawBufferPointer($0)) }.count == 2)
    }
}
