import GuardProtocol
import Testing

@Suite("Reading request lines")
struct RequestDecoderTests {
    @Test("Every command is read, with its id as a string or an integer")
    func commands() throws {
        for command in Request.Command.allCases {
            #expect(try decode(#"{"cmd":"\#(command.rawValue)"}"#).get() == Request(command))
        }
        #expect(try decode(#"{"cmd":"status","id":7}"#).get().id == .number(7))
        #expect(try decode(#"{"id":"a-1","cmd":"ping"}"#).get().id == .text("a-1"))
    }

    @Test("A pause or resume says whether it is this connection's own")
    func whileConnected() throws {
        #expect(try decode(#"{"cmd":"pause","while_connected":true}"#).get() == Request(.pause, whileConnected: true))
        #expect(try decode(#"{"cmd":"resume","while_connected":false}"#).get().whileConnected == false)
        guard case .failure(let error) = decode(#"{"cmd":"pause","while_connected":"yes"}"#) else {
            Issue.record("a while_connected that is not true or false was accepted")
            return
        }
        #expect(error.code == .invalidField)
    }

    @Test("Unknown fields are ignored, so newer clients can talk to this daemon")
    func unknownFields() throws {
        #expect(try decode(#"{"cmd":"status","colour":"blue"}"#).get() == Request(.status))
    }

    @Test(
        "Each kind of bad line has its own stable code",
        arguments: [
            ("", RequestError.Code.emptyRequest),
            (" \t ", .emptyRequest),
            ("{", .invalidJSON),
            ("status", .invalidJSON),
            ("[]", .notAnObject),
            ("42", .notAnObject),
            ("null", .notAnObject),
            (#""status""#, .notAnObject),
            ("{}", .missingField),
            (#"{"cmd":7}"#, .invalidField),
            (#"{"cmd":null}"#, .invalidField),
            (#"{"cmd":"status","id":[1]}"#, .invalidField),
            (#"{"cmd":"reboot"}"#, .unknownCommand),
        ])
    func badLines(line: String, code: RequestError.Code) {
        guard case .failure(let error) = decode(line) else {
            Issue.record("\(line) was accepted")
            return
        }
        #expect(error.code == code)
        #expect(!error.message.isEmpty)
    }

    @Test("Invalid UTF-8 is refused before any JSON parsing")
    func invalidUTF8() {
        guard case .failure(let error) = RequestDecoder().decode([0x7B, 0xFF, 0x7D]) else {
            Issue.record("accepted")
            return
        }
        #expect(error.code == .invalidUTF8)
    }

    @Test("A bad request's id is still echoed when it can be read")
    func idOfBadRequest() {
        guard case .failure(let error) = decode(#"{"cmd":"reboot","id":9}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(error.id == .number(9))
    }
}
