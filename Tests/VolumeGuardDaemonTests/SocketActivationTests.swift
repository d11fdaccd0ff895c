import Foundation
import Testing

@testable import VolumeGuardDaemon

@Suite("Socket activation")
struct SocketActivationTests {
    private func descriptor(_ environment: [String: String], pid: pid_t = 4242) throws -> CInt? {
        try SocketActivation.descriptor(environment: environment, processID: pid)
    }

    @Test("One socket passed to this process is descriptor 3")
    func passed() throws {
        #expect(try descriptor(["LISTEN_PID": "4242", "LISTEN_FDS": "1"]) == 3)
        #expect(try descriptor(["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "volume-guard.socket"]) == 3)
    }

    @Test("No activation: no variables, another process's pid, or no socket")
    func none() throws {
        #expect(try descriptor([:]) == nil)
        #expect(try descriptor(["LISTEN_FDS": "1"]) == nil)
        #expect(try descriptor(["LISTEN_PID": "4242"]) == nil)
        #expect(try descriptor(["LISTEN_PID": "4243", "LISTEN_FDS": "1"]) == nil, "variables inherited from an activated parent")
        #expect(try descriptor(["LISTEN_PID": "4242", "LISTEN_FDS": "0"]) == nil)
    }

    @Test("Malformed variables and more than one socket are errors")
    func errors() {
        #expect(throws: SocketActivation.Problem.malformed(variable: "LISTEN_PID", value: "me")) {
            try descriptor(["LISTEN_PID": "me", "LISTEN_FDS": "1"])
        }
        #expect(throws: SocketActivation.Problem.malformed(variable: "LISTEN_PID", value: "0")) {
            try descriptor(["LISTEN_PID": "0", "LISTEN_FDS": "1"])
        }
        #expect(throws: SocketActivation.Problem.malformed(variable: "LISTEN_FDS", value: "-1")) {
            try descriptor(["LISTEN_PID": "4242", "LISTEN_FDS": "-1"])
        }
        #expect(throws: SocketActivation.Problem.sockets(2)) {
            try descriptor(["LISTEN_PID": "4242", "LISTEN_FDS": "2"])
        }
    }

    @Test("An inherited listening Unix socket is taken with its path, and made close-on-exec")
    func inherited() throws {
        try withUnixSocket(SOCK_STREAM) { descriptor, path in
            #expect(throws: InheritedSocket.Problem.self, "bound but not listening") { try InheritedSocket(descriptor: descriptor) }
            #expect(listen(descriptor, 8) == 0)
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0)

            let socket = try InheritedSocket(descriptor: descriptor)
            #expect(socket.path == path)
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        }
    }

    @Test("What ListenStream=PATH does not make is refused: a datagram socket, a pipe")
    func refused() throws {
        try withUnixSocket(SOCK_DGRAM) { datagram, _ in
            #expect(throws: InheritedSocket.Problem.self) { try InheritedSocket(descriptor: datagram) }
        }
        var pipe: [CInt] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { for end in pipe { close(end) } }
        #expect(throws: InheritedSocket.Problem.self) { try InheritedSocket(descriptor: pipe[0]) }
    }

    /// Runs `body` with a Unix socket of `type` bound to a new path, as systemd makes one before handing
    /// it over; closes and removes it after.
    private func withUnixSocket(_ type: __socket_type, _ body: (CInt, String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("activation-\(UUID().uuidString.prefix(8)).sock").path
        let descriptor = socket(AF_UNIX, CInt(type.rawValue), 0)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind \(path): \(errno)")
        try body(descriptor, path)
    }
}
