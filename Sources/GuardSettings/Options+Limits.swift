import GuardProtocol
import VolumeGuardCore

/// The limits of the options' values, shared by the file and the flags.
extension Options {
    /// The key steps a user may configure, in percent.
    static let steps = 0.1...100.0
    /// The widest clamp margin, in percent: beyond it the held level would barely be the user's.
    static let maximumClampMargin = 25.0
    /// The gesture thresholds a user may configure, in milliseconds. No key repeats faster than every
    /// 10 ms, and presses more than 5 s apart are no gesture a person makes.
    static let gestureMilliseconds = 10...5000

    /// What is wrong with a key step, or nil.
    static func problem(step: Double) -> String? {
        steps.contains(step) ? nil : "must be between \(format(steps.lowerBound)) and \(format(steps.upperBound)) (percent)"
    }

    /// What is wrong with a clamp margin, or nil.
    static func problem(clampMargin: Double) -> String? {
        clampMargin > 0 && clampMargin <= maximumClampMargin ? nil : "must be more than 0 and at most \(format(maximumClampMargin)) (percent)"
    }

    /// What is wrong with a gesture threshold, or nil.
    static func problem(milliseconds: Int) -> String? {
        gestureMilliseconds.contains(milliseconds)
            ? nil : "must be between \(gestureMilliseconds.lowerBound) and \(gestureMilliseconds.upperBound) (milliseconds)"
    }

    /// A gesture threshold's limits and default, for its help: "in milliseconds (10 to 5000; default 150)".
    static func milliseconds(default threshold: KeyPath<GestureDetector.Thresholds, Duration>) -> String {
        let (seconds, attoseconds) = GestureDetector.Thresholds()[keyPath: threshold].components
        let value = Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        return "in milliseconds (\(gestureMilliseconds.lowerBound) to \(gestureMilliseconds.upperBound); default \(value))"
    }

    /// A limit as a user writes it: `25`, not `25.0`.
    static func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }

    /// What is wrong with a history length, or nil.
    static func problem(history: Int) -> String? {
        let range = DaemonConfiguration.historyCapacities
        return range.contains(history) ? nil : "must be between \(range.lowerBound) and \(range.upperBound) (presses)"
    }

    /// What is wrong with a list of web page origins, or nil.
    static func problem(origins: [String]) -> String? {
        origins.lazy.compactMap(WebOrigin.problem).first
    }

    /// What is wrong with a list of input devices, or nil.
    static func problem(devices: [String]) -> String? {
        devices.lazy.compactMap(DeviceMatch.problem).first
    }

    /// What is wrong with a list of key names, or nil: each must be a key the kernel has.
    static func problem(keys: [String]) -> String? {
        keys.first { KeyNames.code($0) == nil }.map { "\"\($0)\" is not a key the kernel knows (KEY_ENTER, KEY_PAGEUP, BTN_LEFT, …)" }
    }

    /// What is wrong with a sink name, path or address, or nil.
    public static func problem(text: String) -> String? {
        text.isEmpty ? "must not be empty" : nil
    }

    /// Raw volume units (65536 = 100 %) for `percent`, at least one.
    public static func raw(percent: Double) -> UInt32 {
        max(1, UInt32((percent / 100 * Double(SinkVolume.norm)).rounded()))
    }
}
