import GuardConfig
import Testing

@Suite("Setting keys of a config file's text, as learn --write does")
struct ConfigEditTests {
    let settings: [(key: String, value: String)] = [("source", "\"input\""), ("devices", "[\"2a:07:98:10:34:9c\"]")]

    @Test("A key already set has its whole value replaced, a multi-line array too; every other line stays")
    func replaces() {
        let text = """
            # My booth.
            source = "sink"   # for now
            devices = [
                "Old Remote",   # a comment, and a ] in it
                "Other",
            ]
            keys = ["KEY_ENTER"]

            # Take a photo.
            [[action]]
            run = ["/usr/bin/true"]
            source = "sink"

            """
        #expect(
            ConfigEdit.setting(settings, in: text) == """
                # My booth.
                source = "input"
                devices = ["2a:07:98:10:34:9c"]
                keys = ["KEY_ENTER"]

                # Take a photo.
                [[action]]
                run = ["/usr/bin/true"]
                source = "sink"

                """)
    }

    @Test("A key not set is added after the top's keys, before the comments that lead into the first table")
    func adds() {
        let withKeys = "mode = \"always\"\n\n[[action]]\nrun = [\"/usr/bin/true\"]\n"
        #expect(
            ConfigEdit.setting(settings, in: withKeys)
                == "mode = \"always\"\nsource = \"input\"\ndevices = [\"2a:07:98:10:34:9c\"]\n\n[[action]]\nrun = [\"/usr/bin/true\"]\n")
        let noKeys = "# The booth.\n\n# Its action:\n[[action]]\nrun = [\"/usr/bin/true\"]\n"
        #expect(
            ConfigEdit.setting(settings, in: noKeys)
                == "# The booth.\n\nsource = \"input\"\ndevices = [\"2a:07:98:10:34:9c\"]\n# Its action:\n[[action]]\nrun = [\"/usr/bin/true\"]\n")
        #expect(ConfigEdit.setting(settings, in: "# Only a comment.\n") == "# Only a comment.\nsource = \"input\"\ndevices = [\"2a:07:98:10:34:9c\"]\n")
        #expect(ConfigEdit.setting(settings, in: "") == "source = \"input\"\ndevices = [\"2a:07:98:10:34:9c\"]\n")
    }

    @Test("A table is added at the end, after an empty line")
    func appends() {
        let action: [(key: String, value: String)] = [("on", "\"up\""), ("run", ConfigEdit.list(["gphoto2", "--capture-image"]))]
        #expect(
            ConfigEdit.appending(table: "action", action, to: "source = \"input\"")
                == "source = \"input\"\n\n[[action]]\non = \"up\"\nrun = [\"gphoto2\", \"--capture-image\"]\n")
        #expect(ConfigEdit.appending(table: "action", action, to: "") == "[[action]]\non = \"up\"\nrun = [\"gphoto2\", \"--capture-image\"]\n")
    }

    @Test("Strings are TOML's: quotes, backslashes and control characters escaped")
    func strings() {
        #expect(ConfigEdit.string("Remote \"Pro\" \\ 2\t\u{1}") == "\"Remote \\\"Pro\\\" \\\\ 2\\t\\u0001\"")
    }

    @Test("A key of the same name in a table is not the top's, and a string with brackets does not end a value early")
    func tablesAndStrings() {
        let text = "[[action]]\nsource = \"sink\"\nrun = [\"/bin/echo\", \"]\"]\n"
        let edited = ConfigEdit.setting([("source", "\"input\"")], in: text)
        #expect(edited == "source = \"input\"\n[[action]]\nsource = \"sink\"\nrun = [\"/bin/echo\", \"]\"]\n")
        let strings = "keys = [\"KEY_A\", 'x]', \"\\\"]\"]\nmode = \"always\"\n"
        #expect(ConfigEdit.setting([("keys", "[\"KEY_ENTER\"]")], in: strings) == "keys = [\"KEY_ENTER\"]\nmode = \"always\"\n")
    }
}
