import CEvdev
import Glibc
import SystemPackage
import VolumeGuardCore

/// An open event node (`/dev/input/eventN`): its keys' state, its events, and the grab that keeps them
/// from every other reader. Nonblocking, for the caller's poll; a copy shares the descriptor, and one
/// `close` closes it for all.
public struct EvdevFile: Sendable {
    /// The node it was opened from.
    public let node: String
    public let descriptor: Int32

    /// Opens `node` to read, nonblocking and closed on exec. EACCES while udev has not yet given the
    /// user the node (or never will: see `DeviceProblem`), ENOENT or ENODEV when the device is gone.
    public static func open(_ node: String) throws(Errno) -> EvdevFile {
        let descriptor = try retrying { Glibc.open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        return EvdevFile(node: node, descriptor: descriptor)
    }

    /// What the open device says it is (EVIOCGNAME, EVIOCGID, EVIOCGUNIQ, EVIOCGBIT): event numbers are
    /// reused, so a node opened after a scan may be another device than the one the scan matched. No
    /// `uniq` (ENOENT) is an empty one, as sysfs shows it.
    public func info() throws(Errno) -> InputDeviceInfo {
        var name = [CChar](repeating: 0, count: 256)
        try check(cevdev_name(descriptor, &name, name.count - 1))
        var id = input_id()
        try check(cevdev_id(descriptor, &id))
        var uniq = [CChar](repeating: 0, count: 256)
        if cevdev_uniq(descriptor, &uniq, uniq.count - 1) < 0 && errno != ENOENT { throw Errno(rawValue: errno) }
        var keys = Self.keyWords()
        try check(cevdev_key_capabilities(descriptor, &keys, keys.count * MemoryLayout<UInt>.size))
        return InputDeviceInfo(
            node: node, name: Self.text(name), vendor: id.vendor, product: id.product, bus: id.bustype, uniq: Self.text(uniq),
            keys: KeyBitmap.codes(words: keys))
    }

    /// The keys down now (EVIOCGKEY): the grab waits for none, and after SYN_DROPPED this is the truth
    /// the lost events would have told.
    public func keysDown() throws(Errno) -> Set<UInt16> {
        var words = Self.keyWords()
        try check(cevdev_keys_down(descriptor, &words, words.count * MemoryLayout<UInt>.size))
        return KeyBitmap.codes(words: words)
    }

    /// Takes the device for this file alone (EVIOCGRAB): the desktop and every other reader get none of
    /// its events until `ungrab` or `close`. EBUSY when another program holds it.
    public func grab() throws(Errno) {
        try check(cevdev_grab(descriptor, 1))
    }

    /// Gives the device back to the other readers.
    public func ungrab() throws(Errno) {
        try check(cevdev_grab(descriptor, 0))
    }

    /// The events waiting, read until there are none (EAGAIN); none when nothing waits. ENODEV when the
    /// device is gone. Events read before an error are returned, and the error comes with the next read
    /// (a key's last up before the device went away is still delivered).
    public func read() throws(Errno) -> [InputEvent] {
        var events: [InputEvent] = []
        var buffer = [input_event](repeating: input_event(), count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let error = Errno(rawValue: errno)
                if error == .interrupted { continue }
                if error == .wouldBlock || !events.isEmpty { return events }
                throw error
            }
            events += buffer.prefix(count / MemoryLayout<input_event>.stride).map(InputEvent.init)
            if count < buffer.count * MemoryLayout<input_event>.stride { return events }
        }
    }

    public func close() {
        _ = Glibc.close(descriptor)
    }

    /// A string an ioctl wrote into `bytes`, up to its NUL.
    private static func text(_ bytes: [CChar]) -> String {
        String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Room for a bit per key code, KEY_MAX and below, in the kernel's words.
    private static func keyWords() -> [UInt] {
        [UInt](repeating: 0, count: Int(KEY_MAX) / UInt.bitWidth + 1)
    }
}

/// `result`, or the error in `errno` when it is negative.
@discardableResult
func check(_ result: Int32) throws(Errno) -> Int32 {
    guard result >= 0 else { throw Errno(rawValue: errno) }
    return result
}

/// `call`'s result, called again while a signal interrupts it.
func retrying(_ call: () -> Int32) throws(Errno) -> Int32 {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return try check(result) }
    }
}
