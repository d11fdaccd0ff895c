import Glibc
import GuardSettings
import InputDevices

extension Desktop {
    /// The desktop sessions of this user that run now, known by their shell's process (whose name /proc
    /// cuts to 15 characters), each with its volume popup's setting.
    static func running(environment: [String: String]) -> [Desktop] {
        let user = getuid()
        let commands = Set(Processes.ids.filter { Processes.owner($0) == user }.compactMap(Processes.command))
        var desktops: [Desktop] = []
        if commands.contains("mate-settings-d") {
            let answer = BoundedRun(["gsettings", "get", "org.mate.SettingsDaemon.plugins.media-keys", "enable-osd"], environment: environment)
            let osd: Bool? = if case .answered(let lines, _) = answer { lines.first.flatMap { Bool($0) } } else { nil }
            desktops.append(.mate(osd: osd))
        }
        if commands.contains("plasmashell") {
            // Plasma 6 writes its settings with kwriteconfig6, Plasma 5 with kwriteconfig5.
            let writer =
                if case .executable = ProgramLookup("kwriteconfig6", path: environment["PATH"]) { "kwriteconfig6" } else { "kwriteconfig5" }
            desktops.append(.kde(plasmaparc: Directory.contents(environment.configHome + "/plasmaparc"), writer: writer))
        }
        if commands.contains("gnome-shell") { desktops.append(.gnome) }
        return desktops
    }
}
