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

    static let mark = "# learn's"
    static let action: [(key: String, value: String)] = [("on", "\"up\""), ("run", ConfigEdit.list(["gphoto2", "--capture-image"]))]

    @Test("A marked table is added at the end, after an empty line")
    func appends() {
        #expect(
            ConfigEdit.placing(table: "action", marked: Self.mark, Self.action, in: "source = \"input\"")
                == "source = \"input\"\n\n# learn's\n[[action]]\non = \"up\"\nrun = [\"gphoto2\", \"--capture-image\"]\n")
        #expect(
            ConfigEdit.placing(table: "action", marked: Self.mark, Self.action, in: "")
                == "# learn's\n[[action]]\non = \"up\"\nrun = [\"gphoto2\", \"--capture-image\"]\n")
    }

    @Test("A marked table placed again replaces the first, however its user changed it, and every other line stays")
    func replacesMarkedTable() {
        let text = """
            source = "input"

            # learn's
            [[action]]
            on = "down"
            run = ["/usr/bin/edited-by-hand"]
            cooldown = 5

            # My own.
            [[action]]
            run = ["/usr/bin/true"]

            """
        let placed = ConfigEdit.placing(table: "action", marked: Self.mark, Self.action, in: text)
        #expect(
            placed == """
                source = "input"

                # learn's
                [[action]]
                on = "up"
                run = ["gphoto2", "--capture-image"]

                # My own.
                [[action]]
                run = ["/usr/bin/true"]

                """)
        #expect(ConfigEdit.placing(table: "action", marked: Self.mark, Self.action, in: placed) == placed, "placed twice: one table")
    }

    @Test("A table whose mark its user removed is theirs: another is added")
    func unmarkedTableKept() {
        let text = "[[action]]\non = \"up\"\nrun = [\"gphoto2\", \"--capture-image\"]\n"
        #expect(ConfigEdit.placing(table: "action", marked: Self.mark, Self.action, in: text) == text + "\n# learn's\n" + text)
    }

    @Test("A line inside a multi-line string is never edited, even where it reads as a key")
    func multiLineStrings() {
        let text = "sink = \"\"\"\nsource = \"input\"\n\"\"\"\n[[action]]\nrun = ['''\n# learn's\n[[action]]\n''']\n"
        #expect(
            ConfigEdit.setting([("source", "\"sink\"")], in: text)
                == "sink = \"\"\"\nsource = \"input\"\n\"\"\"\nsource = \"sink\"\n[[action]]\nrun = ['''\n# learn's\n[[action]]\n''']\n")
        #expect(
            ConfigEdit.placing(table: "action", marked: Self.mark, [("run", "[]")], in: text) == text + "\n# learn's\n[[action]]\nrun = []\n",
            "a mark inside a string is no mark")
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
