import Foundation
import GuardSettings
import Testing

@Suite("The MQTT broker's settings")
struct BrokerSettingsTests {
    @Test("An address: MQTT's ports by default, a port given, IPv6 in brackets")
    func addresses() {
        #expect(BrokerAddress("mqtt://pi.local") == BrokerAddress(host: "pi.local", port: 1883, tls: false))
        #expect(BrokerAddress("mqtts://pi.local") == BrokerAddress(host: "pi.local", port: 8883, tls: true))
        #expect(BrokerAddress("MQTT://10.0.0.2:1884") == BrokerAddress(host: "10.0.0.2", port: 1884, tls: false))
        #expect(BrokerAddress("mqtt://[::1]:1883") == BrokerAddress(host: "::1", port: 1883, tls: false))
        #expect(BrokerAddress("mqtt://[::1]")?.description == "mqtt://[::1]:1883")
        for wrong in [
            "pi.local", "mqtt://", "mqtt://pi.local/x", "mqtt://pi.local:99999", "mqtt://[::1", "mqtt://pi local", "tcp://pi.local", "mqtt://g:h:1883",
            "mqtt://::1",
        ] {
            #expect(BrokerAddress(wrong) == nil, "\(wrong)")
        }
        #expect(BrokerAddress.problem("mqtt://fd00::10")?.contains("brackets") == true)
    }

    @Test("An address written out reads back as itself")
    func roundTrip() {
        for text in ["mqtt://pi.local", "mqtts://10.0.0.2:8884", "mqtt://[fd00::10]:1883", "mqtt://broker-1.lan:1"] {
            let address = BrokerAddress(text)
            #expect(address != nil, "\(text)")
            #expect(address.flatMap { BrokerAddress($0.description) } == address, "\(text)")
        }
    }

    @Test("Unset keys take their defaults: the host's topic, discovery on, commands off")
    func defaults() {
        var options = Options()
        #expect(DaemonConfiguration(options, environment: [:]).broker == nil, "off by default")
        options.mqtt = "mqtt://pi.local"
        let broker = DaemonConfiguration(options, environment: [:]).broker
        #expect(broker?.topic == BrokerSettings.defaultTopic)
        #expect(broker?.topic.hasPrefix("volume-guard/") == true)
        #expect(broker?.discoveryPrefix == "homeassistant")
        #expect(broker?.commands == false)
        options.mqttDiscovery = false
        #expect(DaemonConfiguration(options, environment: [:]).broker?.discoveryPrefix == nil)
    }

    @Test("The client id is the topic's FNV-1a hash: the same on every start, another for another topic")
    func clientID() {
        let booth = BrokerSettings(address: BrokerAddress(host: "pi", port: 1883, tls: false), topic: "volume-guard/booth")
        #expect(booth.clientID == "vg-9400311dfa0ce970", "FNV-1a 64 of \"volume-guard/booth\", as Python computes it")
        var other = booth
        other.topic = "volume-guard/kiosk"
        #expect(other.clientID != booth.clientID)
        #expect(other.clientID.count == 19)
    }

    @Test("The password file: its first line; an empty, missing or binary file is an error naming it")
    func passwordFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vg-password-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/password"
        try "s3cret\nignored\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try PasswordFile.read(path) == "s3cret")
        try "s3cret\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try PasswordFile.read(path) == "s3cret")
        try "\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: PasswordFile.Failure.self) { try PasswordFile.read(path) }
        do {
            _ = try PasswordFile.read(path)
        } catch {
            #expect(error.description == "mqtt-password-file \(path) has an empty first line: its first line is the password")
        }
        try Data([0x73, 0x00, 0x65, 0x0A]).write(to: URL(fileURLWithPath: path))
        #expect(throws: PasswordFile.Failure.self, "a NUL byte") { try PasswordFile.read(path) }
        try Data([0x73, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: path))
        #expect(throws: PasswordFile.Failure.self, "not UTF-8") { try PasswordFile.read(path) }
        try Data(repeating: 0x61, count: 5000).write(to: URL(fileURLWithPath: path))
        #expect(throws: PasswordFile.Failure.self, "larger than a password") { try PasswordFile.read(path) }
        do {
            _ = try PasswordFile.read(directory + "/none")
            Issue.record("a missing file was read")
        } catch {
            #expect(error.description == "cannot read mqtt-password-file \(directory)/none: No such file or directory")
        }
    }

    @Test("The password never appears in the options nor the configuration: only the file's path")
    func passwordNotKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vg-password-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/password"
        try "s3cret\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try PasswordFile.read(path) == "s3cret", "the file holds it")
        var options = Options()
        options.mqtt = "mqtt://pi.local"
        options.mqttPasswordFile = path
        let json = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        #expect(json.contains("password"))
        #expect(!json.contains("s3cret"))
        let configuration = DaemonConfiguration(options, environment: [:])
        #expect(configuration.broker?.passwordFile == path)
        #expect(!String(reflecting: configuration).contains("s3cret"), "what a log line or `config --json` could show of it")
    }
}
