import Logging
import NIOCore
import NIOEmbedded
import Pairing
import Testing

@testable import VolumeGuardDaemon

@Suite("The listener's paired clients: their streams, revoked")
struct PairedClientsTests {
    let clients = PairedClients(file: PairingsFile(path: "/nonexistent/pairings.json"), logger: Logger(label: "test"))
    let tablet = PairedClient(name: "tablet", role: .trigger, tokenHash: Token("tablet-token")!.hash, paired: "")
    let phone = PairedClient(name: "phone", role: .watch, tokenHash: Token("phone-token")!.hash, paired: "")

    func stream() -> (EmbeddedChannel, ClientQueue) {
        let channel = EmbeddedChannel()
        _ = channel.connect(to: try! SocketAddress(ipAddress: "127.0.0.1", port: 8370))
        return (channel, ClientQueue(channel: channel, capacity: 10, carrier: .eventStream))
    }

    @Test("Revoking a client, or pairing it again, closes its streams and no other's")
    func revocation() throws {
        clients.use(Pairings([tablet, phone]))
        #expect(stream().0.isActive)
        let (tabletChannel, tabletStream) = stream()
        let (phoneChannel, phoneStream) = stream()
        #expect(clients.open(tabletStream, for: tablet) == .opened)
        #expect(clients.open(phoneStream, for: phone) == .opened)
        clients.use(Pairings([phone]))
        tabletChannel.embeddedEventLoop.run()
        #expect(!tabletChannel.isActive, "the revoked client's stream is closed")
        #expect(phoneChannel.isActive)
        let again = PairedClient(name: "phone", role: .watch, tokenHash: Token("new-phone-token")!.hash, paired: "")
        clients.use(Pairings([again]))
        phoneChannel.embeddedEventLoop.run()
        #expect(!phoneChannel.isActive, "a new token revokes the old one's streams")
        #expect(clients.open(stream().1, for: phone) == .revoked, "a request decided before the revocation opens none")
        #expect(clients.open(stream().1, for: again) == .opened)
    }

    @Test("A client holds at most its share of streams; a closed one frees its place")
    func bounded() {
        clients.use(Pairings([tablet]))
        var queues = (0..<PairedClients.streamsPerClient).map { _ in stream().1 }
        for queue in queues { #expect(clients.open(queue, for: tablet) == .opened) }
        let extra = stream().1
        #expect(clients.open(extra, for: tablet) == .full)
        clients.closed(queues.removeLast(), for: tablet)
        #expect(clients.open(extra, for: tablet) == .opened)
    }
}
