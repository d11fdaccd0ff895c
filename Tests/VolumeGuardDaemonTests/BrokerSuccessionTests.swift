import GuardSettings
import Testing

@testable import VolumeGuardDaemon

@Suite("Which link to the broker runs, across reloads and the stop")
struct BrokerSuccessionTests {
    func configuration(_ topic: String?) -> DaemonConfiguration {
        DaemonConfiguration(
            socketPath: "/run/vg.sock",
            broker: topic.map { BrokerSettings(address: BrokerAddress(host: "pi", port: 1883, tls: false), topic: $0) })
    }

    @Test("Without mqtt no link starts, and a reload that sets it starts one")
    func off() {
        var succession = BrokerSuccession()
        #expect(succession.handle(.start(configuration(nil))) == nil)
        #expect(succession.state == .none)
        #expect(succession.handle(.reload(configuration("booth"), changes: true)) == .start(configuration("booth"), generation: 1))
        #expect(succession.state == .running(generation: 1))
    }

    @Test("A reload that changes the link stops the one in use first; the new one starts when it has finished")
    func replace() {
        var succession = BrokerSuccession()
        #expect(succession.handle(.start(configuration("a"))) == .start(configuration("a"), generation: 1))
        #expect(succession.handle(.reload(configuration("a"), changes: false)) == nil, "nothing changes")
        #expect(succession.handle(.reload(configuration("b"), changes: true)) == .stop(generation: 1))
        #expect(succession.handle(.reload(configuration("c"), changes: true)) == nil, "the link is stopping already")
        #expect(succession.state == .replacing(generation: 1, next: configuration("c")), "the latest reload wins")
        #expect(succession.handle(.finished(generation: 1)) == .start(configuration("c"), generation: 2))
        #expect(succession.handle(.finished(generation: 1)) == nil, "a replaced link's late finish is nothing")
        #expect(succession.state == .running(generation: 2))
    }

    @Test("A reload that removes mqtt ends the link and starts none")
    func remove() {
        var succession = BrokerSuccession()
        _ = succession.handle(.start(configuration("a")))
        #expect(succession.handle(.reload(configuration(nil), changes: true)) == .stop(generation: 1))
        #expect(succession.handle(.finished(generation: 1)) == nil)
        #expect(succession.state == .none)
    }

    @Test("The stop ends the link in use, and starts neither a waiting replacement nor a later reload's")
    func end() {
        var succession = BrokerSuccession()
        _ = succession.handle(.start(configuration("a")))
        #expect(succession.handle(.end) == .stop(generation: 1))
        #expect(succession.handle(.reload(configuration("b"), changes: true)) == nil)
        #expect(succession.handle(.finished(generation: 1)) == nil)
        #expect(succession.state == .ending(generation: nil))

        var replacing = BrokerSuccession()
        _ = replacing.handle(.start(configuration("a")))
        _ = replacing.handle(.reload(configuration("b"), changes: true))
        #expect(replacing.handle(.end) == nil, "the link is stopping already")
        #expect(replacing.handle(.finished(generation: 1)) == nil, "no replacement starts")
        #expect(replacing.state == .ending(generation: nil))
    }
}
