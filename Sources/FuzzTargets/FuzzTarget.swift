import GuardConfig
import GuardSettings
import InputDevices
import Pairing
import VolumeGuardDaemon

/// The parsers of outside input that libFuzzer drives (Fuzz/, `scripts/fuzz`), one target each; the
/// tests replay each target's corpus and every crasher found through the same call.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A control-socket client's bytes: lines, each a request.
    case requestLine = "request-line"
    /// A config file's bytes, through the check of its text, the nesting check, TOMLKit and toml++, and
    /// every key's rules.
    case configFile = "config-file"
    /// An HTTP connection's bytes: NIOHTTP1's decoder, then the listener's policy (Last-Event-ID too).
    case httpHead = "http-head"
    /// An event node's reads, split into frames and fed to the guard's machine as a grabbed remote's.
    case evdev
    /// The record of original levels a crash left.
    case originals
    /// What is read from sysfs (a device's ids and key bitmap), logind's user record and udev's links.
    case system
    /// The MQTT broker's address as `mqtt` writes it; one it takes must read back from its description.
    case brokerAddress = "broker-address"
    /// The HTTP listener's pairings file.
    case pairings

    /// Feeds `bytes` to the target's parser. A crash, a trap or a hang here is a bug.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .requestLine:
            _ = OutsideInput.controlRequests(bytes)
        case .configFile:
            _ = try? ConfigFile.parse(ConfigFile.text(of: bytes, path: "fuzz.toml"), path: "fuzz.toml")
        case .httpHead:
            HTTPReplay.run(bytes)
        case .evdev:
            var replay = EvdevReplay(bytes)
            replay.run()
        case .originals:
            _ = OutsideInput.originals(bytes)
        case .system:
            SystemText.parseAll(bytes)
        case .brokerAddress:
            guard let address = BrokerAddress(String(decoding: bytes, as: UTF8.self)) else { return }
            precondition(BrokerAddress(address.description) == address, "\(address) does not read back")
        case .pairings:
            _ = try? PairingsFile.pairings(in: bytes, path: "pairings.json")
        }
    }
}
