/// One link of the chain from a key to a press, as `doctor` found it: whether it holds, what it found in
/// one line, and, when it does not hold, the command that fixes it.
struct Finding: Hashable, Sendable, Encodable {
    /// The links, in the order a press travels them and `doctor` checks them.
    enum Link: String, Hashable, Sendable, Encodable {
        case config
        case daemon
        case audioServer = "audio-server"
        case defaultSink = "default-sink"
        case volumePopup = "volume-popup"
        case device
        case service
        case lingering
        case action
        case http
        case pairings
        case mqtt
    }

    enum Status: String, Hashable, Sendable, Encodable {
        case ok
        case wrong
        /// The check could not be made (no permission, no systemd): said so, never guessed.
        case unknown
    }

    var link: Link
    /// Which one, for links there are several of: a device (its name or the configured match), an action.
    var subject: String?
    var status: Status
    var message: String
    /// The command that fixes it, with a few words around it when one command is not all; only when wrong.
    var fix: String?

    static func ok(_ link: Link, _ message: String) -> Finding {
        Finding(link: link, status: .ok, message: message)
    }

    static func ok(_ link: Link, _ subject: String, _ message: String) -> Finding {
        Finding(link: link, subject: subject, status: .ok, message: message)
    }

    static func wrong(_ link: Link, _ message: String, fix: String) -> Finding {
        Finding(link: link, status: .wrong, message: message, fix: fix)
    }

    static func wrong(_ link: Link, _ subject: String, _ message: String, fix: String) -> Finding {
        Finding(link: link, subject: subject, status: .wrong, message: message, fix: fix)
    }

    static func unknown(_ link: Link, _ message: String) -> Finding {
        Finding(link: link, status: .unknown, message: message)
    }

    static func unknown(_ link: Link, _ subject: String, _ message: String) -> Finding {
        Finding(link: link, subject: subject, status: .unknown, message: message)
    }

    /// Its line for a person: a mark that lines up, the link, and what is wrong with its fix after a dash:
    /// `FAIL  device "AB Shutter3": not present — …`.
    var text: String {
        let mark =
            switch status {
            case .ok: "ok    "
            case .wrong: "FAIL  "
            case .unknown: "?     "
            }
        let name = link.rawValue.replacing("-", with: " ") + (subject.map { " \"\($0)\"" } ?? "")
        return mark + name + ": " + message + (fix.map { " — \($0)" } ?? "")
    }
}
