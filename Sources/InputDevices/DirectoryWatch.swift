import Glibc
import SystemPackage

/// Tells when input devices may have come or gone, or changed permissions, so that the caller scans
/// again (`InputDirectory.scan`) instead of polling: inotify on the directories that hold the event
/// nodes and their stable links. Nonblocking: the caller polls `descriptor` and calls `drain` when it
/// is readable.
public struct DirectoryWatch: Sendable {
    /// The inotify descriptor, readable when something happened.
    public let descriptor: Int32
    /// The event nodes' directory, `/dev/input`.
    private let devices: String
    /// What each watch watches, by its watch descriptor.
    private var watches: [Int32: Watched] = [:]

    private enum Watched {
        /// `/dev`, for `input` appearing: devtmpfs creates `/dev/input` with the first input device and
        /// removes it with the last, so a machine whose only input device is a remote that is asleep (or
        /// not paired yet) has no `/dev/input` to watch.
        case parent
        /// `/dev/input`: a node created or removed (a device came or went), or its attributes changed
        /// (IN_ATTRIB: udev sets the node's owner, mode and ACL a moment after the kernel creates it,
        /// and only then can the user open it).
        case devices
        /// `/dev/input/by-id` or `by-path`: udev adds a device's stable links after its node, and the
        /// config file may name a device by one.
        case links
    }

    /// Watches `devices` (`/dev/input`), its stable link directories, and its parent (`/dev`).
    public init(devices: String = "/dev/input") throws(Errno) {
        descriptor = try check(inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)))
        self.devices = devices
        watchWhatExists()
    }

    /// Reads every event waiting; true when any may have changed which devices are present, what they
    /// are called or whether they can be opened. Directories that appeared are watched from now on.
    public mutating func drain() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            for record in buffer.withUnsafeBytes({ InotifyRecord.records(in: UnsafeRawBufferPointer(rebasing: $0[..<count])) }) {
                changed = matters(record) || changed
            }
        }
        if changed { watchWhatExists() }
        return changed
    }

    public func close() {
        _ = Glibc.close(descriptor)
    }

    /// Whether `record` may change the devices, forgetting a watch the kernel removed.
    private mutating func matters(_ record: InotifyRecord) -> Bool {
        // The queue overflowed: anything may have happened.
        if record.mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }
        // The watched directory went away (removed, or its file system unmounted).
        if record.mask & UInt32(IN_IGNORED) != 0 {
            watches[record.watch] = nil
            return true
        }
        switch watches[record.watch] {
        case .parent: return record.name == FilePath(devices).lastComponent?.string
        case .devices: return record.name.isEmpty || InputDirectory.eventNumber(record.name) != nil || Self.linkKinds.contains(record.name)
        case .links: return true
        case nil: return false
        }
    }

    /// Adds a watch for each directory that exists and has none yet (adding one again is harmless: the
    /// kernel returns the same watch). Called at the start and after each change, so that a directory
    /// created between two events is not missed: its creation is itself a change.
    private mutating func watchWhatExists() {
        let entries = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)
        let itself = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        let parent = FilePath(devices).removingLastComponent().string
        add(parent, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR), as: .parent)
        add(devices, entries | itself | UInt32(IN_ATTRIB), as: .devices)
        for kind in Self.linkKinds {
            add("\(devices)/\(kind)", entries | itself, as: .links)
        }
    }

    private static let linkKinds = ["by-id", "by-path"]

    private mutating func add(_ path: String, _ mask: UInt32, as watched: Watched) {
        let watch = inotify_add_watch(descriptor, path, mask)
        if watch >= 0 { watches[watch] = watched }
    }
}
