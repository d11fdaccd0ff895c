import FoundationEssentials
import Glibc
import GuardProtocol
import Pairing
import Testing

@Suite struct PairingsTests {
    private func client(_ name: String, _ role: ClientRole = .watch, token: String = "t") -> PairedClient {
        PairedClient(name: name, role: role, tokenHash: Token(Substring(token))!.hash, paired: "2026-12-03T12:00:00Z")
    }

    @Test func aTokenFindsItsClientAndNoOther() throws {
        let pairings = Pairings([client("tablet", .trigger, token: "one"), client("phone", .operate, token: "two")])
        #expect(pairings.client(presenting: try #require(Token("one")))?.name == "tablet")
        #expect(pairings.client(presenting: try #require(Token("two")))?.role == .operate)
        #expect(pairings.client(presenting: try #require(Token("three"))) == nil)
        #expect(pairings.clients.map(\.name) == ["phone", "tablet"], "sorted by name")
    }

    @Test func pairingANameAgainReplacesItsToken() throws {
        var pairings = Pairings([client("tablet", token: "old")])
        let replaced = pairings.pair(client("tablet", .trigger, token: "new"))
        #expect(replaced?.tokenHash == Token("old")!.hash)
        #expect(pairings.client(presenting: try #require(Token("old"))) == nil)
        #expect(pairings["tablet"]?.role == .trigger)
        #expect(pairings.clients.count == 1)
    }

    @Test func revokingTakesTheClientAway() {
        var pairings = Pairings([client("tablet"), client("phone")])
        #expect(pairings.revoke("tablet")?.name == "tablet")
        #expect(pairings.revoke("tablet") == nil)
        #expect(pairings.clients.map(\.name) == ["phone"])
    }

    @Test func eachRoleAllowsWhatTheOneBeforeItAllows() {
        #expect(ClientRole.operate.allows(.trigger) && ClientRole.operate.allows(.watch))
        #expect(ClientRole.trigger.allows(.watch) && !ClientRole.trigger.allows(.operate))
        #expect(!ClientRole.watch.allows(.trigger))
    }

    @Test(arguments: ["tablet", "Booth-iPad_2", "a", "phone.1"])
    func plainNamesAreNames(_ name: String) {
        #expect(Pairings.problem(withName: name) == nil)
    }

    @Test(arguments: ["", "-x", ".x", "a b", "tablet/1", "é", String(repeating: "a", count: 65)])
    func otherNamesAreRefused(_ name: String) {
        #expect(Pairings.problem(withName: name) != nil)
    }

    @Test func theFileKeepsHashesOnlyWithMode0600() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "pairings-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = PairingsFile(path: directory + "/volume-guard/pairings.json")
        #expect(try file.load() == Pairings(), "no file: no clients")
        let token = try Token.generate()
        let pairings = Pairings([PairedClient(name: "tablet", role: .trigger, tokenHash: token.hash, paired: "2026-12-03T12:00:00Z")])
        try file.save(pairings)
        #expect(try file.load() == pairings)
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(!text.contains(token.text), "the token itself is never written")
        #expect(text.contains(token.hash.description))
        var info = stat()
        #expect(stat(file.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test(arguments: [
        ("{", "is not a pairings file"),
        (#"{"clients":[{"name":"x","role":"admin","token_sha256":"00","paired":""}]}"#, "is not a pairings file"),
        (#"{"clients":[{"name":"a b","role":"watch","token_sha256":"\#(String(repeating: "0", count: 64))","paired":""}]}"#, "names a client"),
    ])
    func aDamagedFileIsAnErrorThatNamesIt(_ contents: String, _ problem: String) throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "pairings-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        #expect {
            try PairingsFile(path: path).load()
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains(problem)
        }
    }
}
