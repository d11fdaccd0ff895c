import ArgumentParser

/// The input devices to take keys from and the keys besides the volume keys, as `run` and `devices` take
/// them: in place of the config file's `devices` and `keys`.
public struct DeviceOptions: ParsableArguments {
    public init() {}

    @Option(
        name: [.customLong("devices"), .customLong("device")],
        help: .setting("devices", valueName: "device"))
    var device: [String] = []

    @Option(
        name: [.customLong("keys"), .customLong("key")],
        help: .setting("keys", valueName: "key"))
    var key: [String] = []

    /// The devices given, or nil for none (the config file's then count).
    public var devices: [String]? { device.isEmpty ? nil : device }
    /// The keys given, or nil for none.
    public var keys: [String]? { key.isEmpty ? nil : key }
}
