import Testing

@testable import InputDevices

@Suite("logind's record of a user: the seats of its active sessions")
struct LogindUserTests {
    /// A record as logind writes one (logind-user.c, user_save_internal) for a user logged in at seat0 and
    /// over SSH, with an inactive session on seat1.
    let record = """
        # This is private data. Do not parse.
        NAME=booth
        STATE=active
        STOPPING=no
        RUNTIME=/run/user/1000
        SESSIONS=2 c1 5
        SEATS=seat0 seat1
        ACTIVE_SESSIONS=2 c1
        ONLINE_SESSIONS=2 c1 5
        ACTIVE_SEATS=seat0
        ONLINE_SEATS=seat0 seat1

        """

    @Test("ACTIVE_SEATS, not SEATS or ONLINE_SEATS")
    func active() {
        #expect(LogindUser.activeSeats(record: record) == ["seat0"])
    }

    @Test("None: a user with sessions on no seat (SSH), or none at all (lingering)")
    func none() {
        #expect(LogindUser.activeSeats(record: "NAME=booth\nSESSIONS=3\nSEATS=\nACTIVE_SESSIONS=3\nACTIVE_SEATS=\nONLINE_SEATS=\n").isEmpty)
        #expect(LogindUser.activeSeats(record: "NAME=booth\nSTATE=lingering\nSTOPPING=no\n").isEmpty)
        #expect(LogindUser.activeSeats(record: "").isEmpty)
    }

    @Test("Read from /run/systemd/users/UID; no record, or no logind, is no seat")
    func file() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        #expect(LogindUser.recordPath(uid: 1000) == "/run/systemd/users/1000")
        #expect(LogindUser.activeSeats(uid: 1000, directory: tree.root).isEmpty)
        try tree.write("users/1000", record)
        #expect(LogindUser.activeSeats(uid: 1000, directory: tree.root) == ["seat0"])
        #expect(LogindUser.activeSeats(uid: 1001, directory: tree.root).isEmpty)
    }
}
