import Glibc
import InputDevices

/// The processes of /proc, as far as this user may look into them: the files of another user's process
/// are root's to see.
enum Processes {
    /// Every process's id.
    static var ids: [Int32] {
        Directory.entries("/proc").compactMap { Int32($0) }
    }

    /// The user a process runs as; nil when it has ended.
    static func owner(_ pid: Int32) -> uid_t? {
        var status = stat()
        return stat("/proc/\(pid)", &status) == 0 ? status.st_uid : nil
    }

    /// A process's name (`comm`, at most 15 characters); nil when it has ended.
    static func command(_ pid: Int32) -> String? {
        Directory.contents("/proc/\(pid)/comm").map { $0.hasSuffix("\n") ? String($0.dropLast()) : $0 }
    }

    /// The processes but this one that have `path` open, as far as this user may see their files.
    static func holders(of path: String) -> [NodeHolder] {
        ids.filter { $0 != getpid() }.compactMap { pid in
            let descriptors = Directory.entries("/proc/\(pid)/fd")
            guard descriptors.contains(where: { Directory.linkTarget("/proc/\(pid)/fd/\($0)") == path }) else { return nil }
            return NodeHolder(pid: pid, command: command(pid) ?? "?")
        }
    }

    /// The processes but this one that listen on a Unix socket bound to `path`: a daemon's, even when the
    /// file at `path` is no longer its socket.
    static func listeners(on path: String) -> [NodeHolder] {
        let inodes = DaemonFacts.listeningInodes(in: Directory.contents("/proc/net/unix") ?? "", boundTo: path)
        return inodes.flatMap { holders(of: "socket:[\($0)]") }
    }
}
