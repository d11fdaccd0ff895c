import NIOCore
import Testing

@testable import VolumeGuardDaemon

@Suite("How a protocol line goes out on an HTTP event stream")
struct EventStreamFrameTests {
    @Test("An event is unnamed, its data the socket's line exactly; its id, when it has one, a bare seq")
    func frames() {
        let line = ByteBuffer(string: #"{"seq":5,"type":"press"}"# + "\n")
        #expect(String(buffer: EventStreamFrame.event(id: 5, line: line)) == "id: 5\ndata: {\"seq\":5,\"type\":\"press\"}\n\n")
        #expect(String(buffer: EventStreamFrame.event(id: 0, retry: true, line: line)) == "retry: 1000\nid: 0\ndata: {\"seq\":5,\"type\":\"press\"}\n\n")
        #expect(String(buffer: EventStreamFrame.event(line: line)) == "data: {\"seq\":5,\"type\":\"press\"}\n\n")
    }
}
