import VolumeGuardCore

/// The input devices as `doctor` found them: those present, what this user can do with each configured
/// one's node, and the udev rule installed.
struct DeviceFacts: Sendable {
    /// The input devices with keys present now (sysfs: `InputDirectory.scan`).
    var present: [InputDeviceInfo]
    /// What was found of each configured device's node, by node.
    var nodes: [String: NodeFacts]
    var rule: RuleFileFacts
}

struct NodeFacts: Hashable, Sendable {
    /// Whether this user may open it to read (access(2)).
    var readable: Bool
    /// The grab probe's outcome; nil when it was not tried (the daemon holds the node, or it is unreadable).
    var grab: GrabProbe?
    /// The processes of the daemon that does not answer that have it open: it holds the node, which is then
    /// not probed (a probe's grab would fail, or make the daemon's fail).
    var openBySilentDaemon: [NodeHolder] = []
}

/// What a grab of a node (EVIOCGRAB, let go at once) says of it.
enum GrabProbe: Hashable, Sendable {
    /// No one holds it grabbed.
    case free
    /// Another program holds it grabbed (EBUSY): the processes that have it open, as far as this user may
    /// look (`/proc/PID/fd` of its own processes only, unless root).
    case grabbed(holders: [NodeHolder])
    case failed(reason: String)
}

/// A process that has a node open: an input device's, or the daemon's socket.
struct NodeHolder: Hashable, Sendable {
    var pid: Int32
    /// Its name, as /proc/PID/comm says it.
    var command: String
}

/// The udev rule file `volume-guard devices --udev-rule` writes, as installed.
enum RuleFileFacts: Hashable, Sendable {
    case absent
    case unreadable(path: String, reason: String)
    case installed(path: String, text: String)
}
