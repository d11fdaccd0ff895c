import Foundation
import GuardProtocol
import TestSupport
import Testing

@Suite("Who may use the socket, and who owns its path", .serialized)
struct AccessTests {
    static let nobody: uid_t = 65534
    static let stranger: uid_t = 65533

    @Test("The socket is 0600 and every directory the daemon makes for it 0700, whatever the umask")
    func modes() async throws {
        let server = try AudioServer(.pulseaudio)
        let socketPath = server.runtimeDirectory + "/made/for/it/volume-guard.sock"
        let daemon = try await Daemon(
            socketPath: socketPath, environment: server.environment,
            launcher: ["/bin/sh", "-c", #"umask 000; exec "$0" "$@""#]
        )
        #expect(try mode(of: daemon.socketPath) == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: daemon.socketPath)[.type] as? FileAttributeType == .typeSocket)
        for directory in ["made", "made/for", "made/for/it"] {
            #expect(try mode(of: server.runtimeDirectory + "/" + directory) == 0o700, "\(directory)")
        }
    }

    @Test("A client of another user is closed without a reply, even with the socket opened up")
    func strangerRefused() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        try openUp(daemon.socketPath)

        let refused = try outcome(of: asUser(Self.nobody, [Daemon.binaryForAnyone, "status", "--json", "--socket", daemon.socketPath]))
        #expect(refused.status == 1, "\(refused.errors)")
        #expect(refused.output.isEmpty)
        #expect(refused.errors.contains("closed the connection"), "\(refused.errors)")
        #expect(await eventually { daemon.log.contains("refused a client of another user") && daemon.log.contains("uid=\(Self.nobody)") })
        // Root, the daemon's own user here, is served as ever.
        #expect(try await daemon.status().state == .guarding)
    }

    @Test("A daemon run by an ordinary user serves that user and root, and no one else")
    func ownUserServed() async throws {
        let directory = try ownedDirectory(by: Self.nobody)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/volume-guard.sock"
        let daemon = try await Daemon(
            socketPath: socketPath, environment: ["HOME": directory, "XDG_RUNTIME_DIR": directory],
            arguments: ["--server", "unix:\(directory)/no-audio-server"],
            launcher: asUser(Self.nobody, []), binary: Daemon.binaryForAnyone, waitForGuarding: false
        )
        #expect(try owner(of: socketPath) == Self.nobody)
        try openUp(socketPath)

        let own = try outcome(of: asUser(Self.nobody, [Daemon.binaryForAnyone, "status", "--socket", socketPath]))
        #expect(own.status == 0, "\(own.errors)")
        #expect(own.output.contains("state       connecting"), "\(own.output)")
        #expect(try await daemon.status().state == .connecting)
        let stranger = try outcome(of: asUser(Self.stranger, [Daemon.binaryForAnyone, "status", "--socket", socketPath]))
        #expect(stranger.status == 1)
        #expect(stranger.output.isEmpty)
        #expect(await eventually { daemon.log.contains("uid=\(Self.stranger)") })
    }

    @Test("A second daemon on a live socket exits non-zero, says why, and leaves the first serving")
    func secondDaemon() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let second = try outcome(of: [Daemon.binary, "run", "--socket", daemon.socketPath], environment: server.environment)
        #expect(second.status == 1)
        #expect(second.errors.contains("another volume-guard is already serving \(daemon.socketPath)"), "\(second.errors)")
        #expect(try await daemon.status().state == .guarding)
        #expect(try mode(of: daemon.socketPath) == 0o600)
    }

    @Test("A stale socket left by a killed daemon is replaced")
    func staleSocket() async throws {
        let server = try AudioServer(.pulseaudio)
        let killed = try await Daemon(on: server)
        #expect(await killed.stop(with: SIGKILL) == nil)
        #expect(try FileManager.default.attributesOfItem(atPath: killed.socketPath)[.type] as? FileAttributeType == .typeSocket)

        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await subscriber.waitForPresses(1).count == 1)
    }

    @Test("At exit the daemon removes its own socket file, not a file put in its place")
    func replacedSocketKept() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        try FileManager.default.removeItem(atPath: daemon.socketPath)
        try Data("not yours\n".utf8).write(to: URL(fileURLWithPath: daemon.socketPath))
        #expect(await daemon.stop() == 0)
        #expect(try String(contentsOfFile: daemon.socketPath, encoding: .utf8) == "not yours\n")
    }

    @Test("A path that is not a socket is never followed nor removed; run exits non-zero", arguments: ["file", "symlink", "directory"])
    func notASocket(kind: String) async throws {
        let server = try AudioServer(.pulseaudio)
        let path = server.runtimeDirectory + "/volume-guard.sock"
        let target = server.runtimeDirectory + "/precious"
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: target))
        switch kind {
        case "file": try FileManager.default.copyItem(atPath: target, toPath: path)
        case "symlink": try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        default: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        let before = try FileManager.default.attributesOfItem(atPath: path)

        let run = try outcome(of: [Daemon.binary, "run", "--socket", path], environment: server.environment)
        #expect(run.status == 1)
        #expect(run.errors.contains("\(path) exists and is not a socket"), "\(run.errors)")
        let after = try FileManager.default.attributesOfItem(atPath: path)
        #expect(after[.type] as? FileAttributeType == before[.type] as? FileAttributeType)
        #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
    }
}

/// `command` run as another user, with no groups: `setpriv` ships with util-linux.
private func asUser(_ uid: uid_t, _ command: [String]) -> [String] {
    ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"] + command
}

/// Lets anyone reach the socket at `path` through the file system, so that only the daemon's own
/// check stands between it and another user.
private func openUp(_ path: String) throws {
    try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
    try FileManager.default.setAttributes([.posixPermissions: 0o711], ofItemAtPath: (path as NSString).deletingLastPathComponent)
}

/// A fresh directory that `uid` owns, mode 0700.
private func ownedDirectory(by uid: uid_t) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("volume-guard-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    guard chown(path, uid, gid_t(uid)) == 0 else { throw TestFailure("chown \(path): \(String(cString: strerror(errno)))") }
    return path
}

private func mode(of path: String) throws -> Int {
    var info = stat()
    guard lstat(path, &info) == 0 else { throw TestFailure("stat \(path): \(String(cString: strerror(errno)))") }
    return Int(info.st_mode & 0o7777)
}

private func owner(of path: String) throws -> uid_t {
    var info = stat()
    guard lstat(path, &info) == 0 else { throw TestFailure("stat \(path): \(String(cString: strerror(errno)))") }
    return info.st_uid
}
