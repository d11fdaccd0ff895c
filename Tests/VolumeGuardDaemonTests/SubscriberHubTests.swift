import NIOCore
import NIOEmbedded
import Testing

@testable import VolumeGuardDaemon

@Suite("The subscribers' hub: who is sent a press, and who is cut loose")
struct SubscriberHubTests {
    var hub = SubscriberHub(historyCapacity: 8)

    /// A subscriber on a channel of its own, with room for `capacity` unwritten lines. One that `reads`
    /// has its `subscribed` reply written; one that does not leaves it waiting.
    mutating func subscriber(capacity: Int = 8, reads: Bool = true) -> (queue: ClientQueue, channel: EmbeddedChannel) {
        let channel = EmbeddedChannel()
        let queue = ClientQueue(channel: channel, capacity: capacity)
        hub.subscribe(queue, id: nil, since: nil, interests: .init(), lastSeq: 0)
        if reads { channel.embeddedEventLoop.run() }
        return (queue, channel)
    }

    @Test("Every subscriber is sent the press")
    mutating func everyone() throws {
        let first = subscriber(), second = subscriber()
        let cutLoose = hub.publish(seq: 1, ByteBuffer(string: "press\n"))
        #expect(cutLoose == 0)
        for channel in [first.channel, second.channel] {
            channel.embeddedEventLoop.run()
            _ = try channel.readOutbound(as: ByteBuffer.self)  // the subscribed reply
            #expect(try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "press\n")
        }
    }

    @Test("A subscriber that stopped reading is cut loose and counted; the others go on")
    mutating func cutLoose() throws {
        let stalled = subscriber(capacity: 1, reads: false)
        _ = subscriber()
        let cutLoose = hub.publish(seq: 1, ByteBuffer(string: "press\n"))
        #expect(cutLoose == 1)
        #expect(hub.count == 1)
        let wasSubscribed = hub.unsubscribe(stalled.queue)
        #expect(!wasSubscribed)
    }

    @Test("A subscriber whose client closed is not cut loose: its session unsubscribes it")
    mutating func closed() throws {
        let gone = subscriber()
        try gone.channel.close().wait()
        let cutLoose = hub.publish(seq: 1, ByteBuffer(string: "press\n"))
        #expect(cutLoose == 0)
        #expect(hub.count == 1)
        let wasSubscribed = hub.unsubscribe(gone.queue)
        #expect(wasSubscribed)
        #expect(hub.count == 0)
    }
}
