import FoundationEssentials
import Glibc
import GuardConfig
import InputDevices

/// The user whom `learn` sets up the booth for: whoever runs it, or, run with sudo, the user who ran sudo
/// (`SUDO_UID`): that user's config file, socket, audio server and service; the user's files are read and
/// written as the user (`UserFiles`). A fresh Raspberry Pi's remote is readable by root alone, so
/// `sudo volume-guard learn` is the usual way in.
struct InvokingUser {
    var name: String
    var uid: uid_t
    var gid: gid_t
    var home: String
    /// Whether this process is root working for another user (under sudo).
    var isSudo: Bool

    static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> InvokingUser {
        let sudoUID = getuid() == 0 ? environment["SUDO_UID"].flatMap { uid_t($0) }.flatMap { $0 == 0 ? nil : $0 } : nil
        let uid = sudoUID ?? getuid()
        // getpwuid's record is overwritten by the next look-up: its fields are copied at once.
        let account = getpwuid(uid).map {
            (name: String(cString: $0.pointee.pw_name), gid: $0.pointee.pw_gid, home: String(cString: $0.pointee.pw_dir))
        }
        return InvokingUser(
            name: account?.name ?? String(uid), uid: uid, gid: account?.gid ?? getgid(), home: account?.home ?? environment["HOME"] ?? "/",
            isSudo: sudoUID != nil)
    }

    /// The environment as this user's own login has it, for the paths that default from it: under sudo
    /// the user's home and runtime directory (sudo keeps neither), so that the config file, the socket and
    /// the audio server are the user's; as it is otherwise.
    func environment(from environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        guard isSudo else { return environment }
        var own = environment.filter { !["XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "PULSE_SERVER", "PULSE_COOKIE"].contains($0.key) }
        own["HOME"] = home
        own["USER"] = name
        own["XDG_RUNTIME_DIR"] = "/run/user/\(uid)"
        own["PULSE_SERVER"] = "unix:/run/user/\(uid)/pulse/native"
        return own
    }

    /// The user's PulseAudio cookie, for root's libpulse to show the user's server, as a path that names
    /// the file opened here (`/proc/self/fd/N`); nil when there is none to trust. PipeWire's server needs none.
    ///
    /// libpulse would open `PULSE_COOKIE` as root and send what it read to the server, the user's: a
    /// cookie that is a symlink to a file of root's would hand the user its first bytes. So only a regular
    /// file the user owns, of a cookie's size, opened without following a symlink or waiting on a FIFO.
    func cookie() -> String? {
        let file = open("\(home)/.config/pulse/cookie", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { return nil }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == uid, info.st_size <= Self.cookieSize else {
            close(file)
            return nil
        }
        // Left open for libpulse, which opens it by this name for as long as learn listens.
        return "/proc/self/fd/\(file)"
    }

    /// PulseAudio's cookie is 256 bytes.
    static let cookieSize = 256

    /// Whether the user has an active session on a seat now (a desktop, a kiosk's login): else the
    /// service starts at boot only with lingering, and a udev rule gives the remote to the user's group.
    var hasSeat: Bool { !LogindUser.activeSeats(uid: uid).isEmpty }

    /// Whether systemd starts the user's manager at boot, with no login (`loginctl enable-linger`).
    var lingers: Bool { access("/var/lib/systemd/linger/\(name)", F_OK) == 0 }

    /// The name of the user's primary group, as a udev rule's `GROUP=` takes it.
    var groupValue: String {
        UdevRule.groupValue(name: getgrgid(gid).map { String(cString: $0.pointee.gr_name) }, gid: gid)
    }

    /// Whether the user may read `node`: `access` for this process's own user, a child run as the user
    /// otherwise (the node's ACL, which the seat's `uaccess` sets, is the kernel's to judge).
    func canRead(_ node: String) -> Bool {
        guard isSudo else { return access(node, R_OK) == 0 }
        return BoundedRun(["/usr/sbin/runuser", "-u", name, "--", "/usr/bin/test", "-r", node], environment: [:]).succeeded
    }

    /// Whom a child runs as to be this user: the user's ids and every group the user is in (the group
    /// database's, as a login gives them).
    var account: ChildRun.User {
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        while getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count) + 1)
            count = Int32(groups.count)
        }
        return ChildRun.User(uid: uid, gid: gid, groups: Array(groups.prefix(Int(count))))
    }
}
