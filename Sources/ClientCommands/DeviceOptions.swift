import ArgumentParser

/// The input devices to take keys from and the keys besides the volume keys, as `run` and `devices` take
/// them: in place of the config file's `devices` and `keys`.
public struct DeviceOptions: ParsableArguments {
    public init() {}

    @Option(
        name: [.customLong("devices"), .customLong("device")],
        help: ArgumentHelp(
            "An input device to take keys from: its name (as `volume-guard devices` shows it; a remote's parts too), vendor:product (2717:0040) or a path (/dev/input/by-id/…); repeat for more.",
            valueName: "device"))
    var device: [String] = []

    @Option(
        name: [.customLong("keys"), .customLong("key")],
        help: ArgumentHelp(
            "A key besides volume up, down and mute that is a press when a device sends it, e.g. KEY_ENTER; repeat for more.", valueName: "key"))
    var key: [String] = []

    /// The devices given, or nil for none (the config file's then count).
    public var devices: [String]? { device.isEmpty ? nil : device }
    /// The keys given, or nil for none.
    public var keys: [String]? { key.isEmpty ? nil : key }
}
