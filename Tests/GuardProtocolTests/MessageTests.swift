import Foundation
import GuardProtocol
import Testing

@Suite("Lines the daemon sends")
struct MessageTests {
    func object(_ message: some Encodable) throws -> [String: Any] {
        let line = WireFormat.line(message)
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false)
        return try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
    }

    @Test("A press line carries type, seq, direction, count, sink and a UTC time in milliseconds")
    func pressLine() throws {
        let time = WireFormat.timestamp(Date(timeIntervalSince1970: 1_795_000_000.123))
        let fields = try object(PressMessage(seq: 5, direction: .up, count: 2, sink: "guard_a", time: time))
        #expect(fields["type"] as? String == "press")
        #expect(fields["seq"] as? Int == 5)
        #expect(fields["direction"] as? String == "up")
        #expect(fields["count"] as? Int == 2)
        #expect(fields["sink"] as? String == "guard_a")
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
    }

    @Test("A status line uses the protocol's field names")
    func statusLine() throws {
        let status = StatusMessage(
            id: .number(1), state: .noSink, sink: nil, held: nil, original: nil, muted: nil,
            presses: PressCountsMessage(up: 3, down: 0, mute: 0), lastSeq: 3, subscribers: 2, server: "pulseaudio 16.1",
            uptimeSeconds: 1.5
        )
        let fields = try object(status)
        #expect(fields["type"] as? String == "status")
        #expect(fields["state"] as? String == "no-sink")
        #expect(fields["last_seq"] as? Int == 3)
        #expect((fields["presses"] as? [String: Int])?["up"] == 3)
        #expect(fields["id"] as? Int == 1)
        #expect(fields["mqtt"] == nil, "absent without a broker")
    }

    @Test("The broker in a status line: its fields as the protocol names them")
    func statusLineWithBroker() throws {
        let broker = BrokerStatusMessage(
            broker: "mqtt://pi.local:1883", state: "waiting", since: nil, queued: 4, inFlight: 0, dropped: 1,
            error: "the broker refused the connection: not authorised", fix: "check mqtt-user and the password in mqtt-password-file")
        let status = StatusMessage(
            id: nil, state: .guarding, sink: nil, held: nil, original: nil, muted: nil, presses: PressCountsMessage(up: 0, down: 0, mute: 0),
            lastSeq: 0, subscribers: 0, server: nil, uptimeSeconds: 1, mqtt: broker)
        let fields = try #require(try object(status)["mqtt"] as? [String: Any])
        #expect(fields["broker"] as? String == "mqtt://pi.local:1883")
        #expect(fields["state"] as? String == "waiting")
        #expect(fields["in_flight"] as? Int == 0)
        #expect(fields["queued"] as? Int == 4)
        #expect(fields["dropped"] as? Int == 1)
        #expect(fields["since"] == nil)
        #expect((fields["fix"] as? String)?.contains("mqtt-password-file") == true)
    }

    @Test("A refused device's problem is two fields of its line, error and fix, and reads back as one")
    func deviceProblem() throws {
        let problem = DeviceProblem(error: "permission denied", fix: "install the udev rule")
        let device = DeviceMessage(match: "AB Shutter3", name: "AB Shutter3", path: "/dev/input/event3", state: .refused, problem: problem)
        let fields = try object(device)
        #expect(fields["error"] as? String == "permission denied")
        #expect(fields["fix"] as? String == "install the udev rule")
        #expect(try JSONDecoder().decode(DeviceMessage.self, from: WireFormat.line(device)).problem == problem)
        #expect(try object(DeviceMessage(match: "AB Shutter3", state: .absent))["error"] == nil, "no problem, no fields")
    }

    @Test("A client reads back every kind of line it is sent")
    func roundTrip() throws {
        let press = PressMessage(seq: 1, direction: .mute, count: 1, sink: "s", time: "t")
        let gesture = GestureMessage(gesture: .holdStart, direction: .up, seq: 2, presses: 2, sink: "s", time: "t")
        let lines: [(Data, ServerMessage)] = [
            (WireFormat.line(press), .press(press)),
            (WireFormat.line(gesture), .gesture(gesture)),
            (WireFormat.line(SubscribedMessage(id: nil, lastSeq: 4, instance: "i")), .subscribed(SubscribedMessage(id: nil, lastSeq: 4, instance: "i"))),
            (WireFormat.line(StateMessage(state: .paused, sink: nil)), .state(StateMessage(state: .paused, sink: nil))),
            (WireFormat.line(AckMessage(type: "pong", id: .text("x"))), .ack(AckMessage(type: "pong", id: .text("x")))),
            (WireFormat.line(ErrorMessage(RequestError(.invalidJSON, "m"))), .error(ErrorMessage(RequestError(.invalidJSON, "m")))),
        ]
        for (line, expected) in lines {
            #expect(ServerMessage(line: line.dropLast()) == expected)
        }
        #expect(ServerMessage(line: Array("not json".utf8)) == nil)
        #expect(ServerMessage(line: Array(#"{"type":"news","id":1}"#.utf8)) == nil, "a kind of line this version does not know")
    }
}
