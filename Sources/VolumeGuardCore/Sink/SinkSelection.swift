#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which sink the guard holds.
public enum SinkSelection: Hashable, Sendable {
    /// The server's default sink, followed when it changes: the keys of whatever is playing.
    case defaultSink
    /// The first sink whose name matches a shell-style pattern (`bluez_output.*`), waited for while
    /// absent: a Bluetooth remote's keys, leaving the speakers' alone.
    case matching(String)

    /// The name that stands for the default sink in libpulse's requests and `pactl`, and that
    /// pipewire-pulse reports as the default until its session manager has chosen one.
    public static let defaultSinkName = "@DEFAULT_SINK@"

    /// Whether a sink named `name` is one this selection picks.
    public func admits(_ name: String) -> Bool {
        switch self {
        case .defaultSink: false
        case .matching(let pattern): fnmatch(pattern, name, 0) == 0
        }
    }
}
