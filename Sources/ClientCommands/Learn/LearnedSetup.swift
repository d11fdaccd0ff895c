import GuardConfig
import GuardProtocol
import VolumeGuardCore

/// What `learn` makes of what it heard: the source, the devices and the keys for the config file, and the
/// words that say why.
///
/// A key learned on a device means `source = "input"`: the daemon reads and grabs the remote itself, so
/// that no desktop turns its keys into volume changes, shows its volume popup, or needs to be there at
/// all. Only when learn could read no device, and saw the sink change, is it `source = "sink"`.
struct LearnedSetup: Hashable, Sendable {
    var source: SourceSelection
    /// One choice per device matched; the parts of one remote that one match takes count once.
    var devices: [DeviceChoice]
    /// The keys learned that are not volume keys (always taken), in the order pressed.
    var keys: [UInt16]
    /// Whether a desktop turned a learned key into a volume change.
    var desktopReacted: Bool

    /// Nil when nothing was heard.
    init?(_ learning: Learning, present: [InputDeviceInfo]) {
        if learning.learned.isEmpty {
            guard let first = learning.sinkAlone.first else { return nil }
            (source, devices, keys, desktopReacted, firstPress) = (.sink, [], [], false, first.rawValue)
            return
        }
        source = .input
        var choices: [DeviceChoice] = []
        for heard in learning.learned {
            let known = present.contains { $0.node == heard.device.node } ? present : present + [heard.device]
            let choice = DeviceChoice(for: heard.device, among: known)
            if !choices.contains(where: { $0.match == choice.match }) { choices.append(choice) }
        }
        devices = choices
        var keys: [UInt16] = []
        for key in learning.learned.map(\.key) where Direction(key: key) == nil && !keys.contains(key) { keys.append(key) }
        self.keys = keys
        desktopReacted = learning.learned.contains { $0.sinkChange != nil }
        let key = learning.learned[0].key
        firstPress = Direction(key: key)?.rawValue ?? KeyNames.name(key)
    }

    /// The config file's keys it sets, as TOML. `keys` is set only when a key besides the volume keys
    /// was learned: the volume keys need none.
    var settings: [(key: String, value: String)] {
        var settings = [("source", ConfigEdit.string(source.rawValue))]
        guard source == .input else { return settings }
        settings.append(("devices", ConfigEdit.list(devices.map(\.match.description))))
        if !keys.isEmpty { settings.append(("keys", ConfigEdit.list(keys.map(KeyNames.name)))) }
        return settings
    }

    /// The press the first key heard makes, as an action's `on` names it: `up`, `down`, `mute`, or the key.
    var firstPress: String

    /// An `[[action]]` that runs `command` (a program and its arguments) on a press of the first key heard,
    /// with a cooldown of a second: a remote bounces, and one press should take one photo.
    func action(running command: [String]) -> [(key: String, value: String)] {
        [("on", ConfigEdit.string(firstPress)), ("run", ConfigEdit.list(command)), ("cooldown", "1")]
    }

    /// Why this source, given whether the sink was watched and whether this user is root.
    func sourceReason(sinkWatched: Bool, root: Bool) -> String {
        switch (source, desktopReacted, sinkWatched) {
        case (.input, true, _):
            "The desktop turned the key into a volume change (and its volume popup shows): source = \"input\" grabs the remote, so "
                + "neither happens."
        case (.input, false, true):
            "No desktop turned the keys into a volume change: source = \"input\" reads and grabs the remote itself."
        case (.input, false, false):
            "source = \"input\" reads and grabs the remote itself, with or without a desktop (no audio server answered, so whether "
                + "a desktop reacts was not seen)."
        default:
            "The default sink's volume changed, and learn could read no device that made it: source = \"sink\" takes such changes "
                + "as presses."
                + (root ? "" : " To take the remote itself instead (no volume popup, no desktop needed), run `sudo volume-guard learn`.")
        }
    }
}
