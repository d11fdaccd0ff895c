import Foundation
import GuardProtocol
import Testing

@Suite("Subscribing with since")
struct ResumeTests {
    @Test("since is a press seq, any from 0 up; absent or null means live presses only")
    func since() throws {
        #expect(try decode(#"{"cmd":"subscribe"}"#).get().since == nil)
        #expect(try decode(#"{"cmd":"subscribe","since":null}"#).get().since == nil)
        #expect(try decode(#"{"cmd":"subscribe","since":0}"#).get().since == 0)
        #expect(try decode(#"{"cmd":"subscribe","since":18446744073709551615}"#).get().since == .max)
        #expect(try decode(#"{"since":7,"cmd":"subscribe","id":"r"}"#).get() == Request(.subscribe, id: .text("r"), since: 7))
    }

    @Test(
        "A since that is not a whole number from 0 up is an invalid field, and the id is still echoed",
        arguments: [
            #""7""#, "-1", "1.5", "1e30", "18446744073709551616", "true", "[7]", "{}",
        ])
    func badSince(value: String) {
        guard case .failure(let error) = decode(#"{"cmd":"subscribe","id":4,"since":\#(value)}"#) else {
            Issue.record("since \(value) was accepted")
            return
        }
        #expect(error.code == .invalidField)
        #expect(error.message.contains("since"))
        #expect(error.id == .number(4))
    }

    @Test("The subscribed reply says gap only when there is one")
    func gap() throws {
        let plain = String(decoding: WireFormat.line(SubscribedMessage(id: nil, lastSeq: 3, instance: "a1")), as: UTF8.self)
        #expect(plain == #"{"instance":"a1","last_seq":3,"type":"subscribed"}"# + "\n")
        let gapped = SubscribedMessage(id: .number(1), lastSeq: 3000, instance: "a1", gap: true)
        let line = WireFormat.line(gapped)
        #expect(String(decoding: line, as: UTF8.self) == #"{"gap":true,"id":1,"instance":"a1","last_seq":3000,"type":"subscribed"}"# + "\n")
        #expect(ServerMessage(line: line.dropLast()) == .subscribed(gapped))
    }
}
