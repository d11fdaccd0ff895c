import Testing

@testable import ClientCommands

@Suite("Where a client finds the socket")
struct SocketOptionsTests {
    @Test("A socket given is used as it is: the config file is not read, not even one that cannot be")
    func givenSocketReadsNoFile() throws {
        let options = try SocketOptions.parse(["--socket", "/run/given.sock", "--config", "/nonexistent/volume-guard/config.toml"])
        #expect(try options.path == "/run/given.sock")
    }

    @Test("With no socket given, a config file named that cannot be read is an error, not a guess")
    func namedFileMissing() throws {
        let options = try SocketOptions.parse(["--config", "/nonexistent/volume-guard/config.toml"])
        #expect(throws: (any Error).self) { try options.path }
    }
}
