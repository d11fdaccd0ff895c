import GuardProtocol
import GuardSettings
import VolumeGuardCore

/// The sink: the audio server that has it, its default (or the configured one), and each desktop's volume
/// popup, which shows on every press.
extension Diagnosis {
    var sink: [Finding] {
        guard let server = facts.audioServer else { return [] }
        switch server {
        case .unreachable(let reason):
            let at = configuration.server.map { " at \($0)" } ?? ""
            return [
                .wrong(
                    .audioServer, "none answers\(at): \(reason)",
                    fix: "start the session's audio server: `systemctl --user start pipewire-pulse.socket wireplumber` "
                        + "(PipeWire) or `pulseaudio --start`; with no desktop, read the remote itself: source = \"input\"")
            ] + popup
        case .answered(let name, let defaultSink, let sinks):
            return [.ok(.audioServer, name), self.defaultSink(defaultSink, sinks: sinks)] + popup
        }
    }

    private func defaultSink(_ defaultSink: String?, sinks: [String]) -> Finding {
        let selection = configuration.core.selection
        if case .matching(let pattern) = selection {
            guard let sink = sinks.first(where: selection.admits) else {
                return .wrong(
                    .defaultSink, "no sink matches the configured sink \"\(pattern)\" (there are: \(Self.list(sinks)))",
                    fix: "connect it, or set `sink` to one of `pactl list short sinks`")
            }
            return .ok(.defaultSink, "the configured sink \"\(pattern)\" is \(sink)")
        }
        guard let defaultSink, defaultSink != SinkSelection.defaultSinkName else {
            return sinks.isEmpty
                ? .wrong(.defaultSink, "the audio server has no sink at all", fix: "connect an output (HDMI, headphones, a USB card)")
                : .wrong(.defaultSink, "the audio server names no default sink", fix: "pactl set-default-sink \(sinks[0])")
        }
        return .ok(.defaultSink, defaultSink)
    }

    /// Each desktop's volume popup, which shows on every press (the guard puts the volume back, but the
    /// desktop shows the change first).
    private var popup: [Finding] {
        guard !facts.desktops.isEmpty else { return [.ok(.volumePopup, "no desktop session of \(facts.user.name) runs here")] }
        return facts.desktops.map { desktop in
            switch desktop {
            case .mate(let osd?) where !osd:
                .ok(.volumePopup, "MATE's is off")
            case .mate(nil):
                .unknown(.volumePopup, "MATE's setting could not be read (gsettings failed)")
            case .mate:
                .wrong(
                    .volumePopup, "MATE shows it on every press",
                    fix: "gsettings set org.mate.SettingsDaemon.plugins.media-keys enable-osd false")
            case .kde(let plasmaparc, let writer):
                Self.volumeOSDIsOff(plasmaparc: plasmaparc ?? "")
                    ? .ok(.volumePopup, "Plasma's is off")
                    : .wrong(
                        .volumePopup, "Plasma shows it on every press",
                        fix: "\(writer) --file plasmaparc --group General --key VolumeOsd false")
            case .gnome where configuration.source == .both:
                .ok(.volumePopup, "GNOME shows none for the grabbed devices (the machine's own volume keys still show it)")
            case .gnome:
                .wrong(
                    .volumePopup, "GNOME shows it on every press, and no setting turns it off",
                    fix: "take the keys from the remote itself: source = \"input\" and its devices in the config file (`volume-guard devices` lists them)")
            }
        }
    }

    /// Whether `plasmaparc` (an INI file) sets `VolumeOsd=false` in `[General]`; Plasma shows the popup otherwise.
    static func volumeOSDIsOff(plasmaparc: String) -> Bool {
        var group = ""
        var off = false
        for line in plasmaparc.split(whereSeparator: \.isNewline).map(trimmed) {
            if line.hasPrefix("[") {
                group = String(line)
            } else if group == "[General]", let equals = line.firstIndex(of: "="), trimmed(line[..<equals]) == "VolumeOsd" {
                off = trimmed(line[line.index(after: equals)...]) == "false"
            }
        }
        return off
    }

    static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    /// `text` without the spaces and tabs at either end, as an INI file's reader takes a line, a key or a value.
    private static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }
}
