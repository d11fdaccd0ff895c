import GuardConfig
import Testing

/// One setting read from its own line of a file that has a mistake elsewhere: how `doctor` finds the
/// daemon's socket when the file cannot be read whole.
@Suite("A config file's setting read alone")
struct ConfigFileAloneTests {
    @Test("A file with a mistake elsewhere still gives its socket, read from its own line of the top level")
    func socketAlone() throws {
        let text = """
            step = "loud"
            socket = "/run/booth/volume-guard.sock"  # the booth's

            [[action]]
            socket = "/elsewhere"
            """
        let line = try #require(ConfigFile.line(setting: "socket", in: text))
        #expect(try ConfigFile.parse(String(line), path: "config.toml").socket == "/run/booth/volume-guard.sock")
        #expect(ConfigFile.line(setting: "socket", in: "step = 5\n[socket]\npath = \"/x\"\n") == nil, "a table named socket is no setting")
        #expect(ConfigFile.line(setting: "socket", in: "[[action]]\nsocket = \"/x\"\n") == nil, "an action's key is not the top level's")
    }
}
