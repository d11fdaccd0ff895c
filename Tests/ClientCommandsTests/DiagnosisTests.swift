import GuardProtocol
import GuardSettings
import InputDevices
import Pairing
import Testing
import VolumeGuardCore

@testable import ClientCommands

/// `doctor`'s diagnosis fed facts as the shell would gather them on a booth: an AB Shutter3 remote, the
/// service run by `booth`, who is on no seat.
@Suite("doctor's diagnosis")
struct DiagnosisTests {
    static let consumer = InputDeviceInfo(
        node: "/dev/input/event6", name: "AB Shutter3 Consumer Control", vendor: 0x2717, product: 0x0040, keys: [115])
    static let keyboard = InputDeviceInfo(node: "/dev/input/event5", name: "AB Shutter3 Keyboard", vendor: 0x2717, product: 0x0040, keys: [28])
    static let groupRule = UdevRule.text(for: [.name("AB Shutter3")], devices: [consumer, keyboard], access: .group("booth"))
    static let seatRule = UdevRule.text(for: [.name("AB Shutter3")], devices: [consumer, keyboard], access: .seat)

    /// A working booth: the remote read directly, grabbed, the rule by the group installed, the service
    /// enabled, lingering, an action whose program is there.
    static func booth() -> DoctorFacts {
        var options = Options()
        options.source = .input
        options.devices = ["AB Shutter3"]
        options.actions = [Action(name: "photo", command: ["gphoto2", "--capture-image"])]
        let status = StatusMessage(
            id: nil, state: .guarding, sink: nil, held: nil, original: nil, muted: nil, presses: PressCountsMessage(up: 0, down: 0, mute: 0),
            lastSeq: 0, subscribers: 0, server: nil, uptimeSeconds: 5, source: "input",
            devices: [consumer, keyboard].map { DeviceMessage(match: "AB Shutter3", name: $0.name, path: $0.node, ids: $0.ids, state: .grabbed) })
        return DoctorFacts(
            config: ConfigFacts(path: "/home/booth/.config/volume-guard/config.toml", exists: true, options: options),
            daemon: .answered(status),
            devices: DeviceFacts(
                present: [keyboard, consumer],
                nodes: [consumer.node: NodeFacts(readable: true), keyboard.node: NodeFacts(readable: true)],
                rule: .installed(path: UdevRule.path, text: groupRule)),
            user: UserFacts(name: "booth", group: "booth", seats: [], lingering: true),
            service: .answered(service: "enabled", socket: "disabled"),
            programs: [ProgramFacts(action: "photo", program: "gphoto2", found: .executable(path: "/usr/bin/gphoto2"))])
    }

    static func wrong(_ facts: DoctorFacts) -> [Finding] {
        Diagnosis(facts).findings.filter { $0.status == .wrong }
    }

    @Test("A working booth: every link ok, in the order a press travels them")
    func workingBooth() {
        let diagnosis = Diagnosis(Self.booth())
        #expect(diagnosis.isHealthy)
        #expect(diagnosis.findings.map(\.link) == [.config, .daemon, .device, .device, .service, .lingering, .action])
        #expect(diagnosis.findings.allSatisfy { $0.status == .ok && $0.fix == nil })
        #expect(
            diagnosis.findings[2].text
                == "ok    device \"AB Shutter3 Keyboard\": /dev/input/event5, 2717:0040: grabbed by volume-guard; the udev rule covers it, by the group booth")
    }

    @Test("A stopped daemon: started as the machine starts it, enabled first when it is not")
    func stoppedDaemon() {
        var facts = Self.booth()
        facts.daemon = .absent(socket: "/run/user/1000/volume-guard.sock")
        #expect(Self.wrong(facts).map(\.link) == [.daemon])
        #expect(Self.wrong(facts).first?.fix?.hasPrefix("systemctl --user start volume-guard") == true)
        facts.service = .answered(service: "disabled", socket: "disabled")
        #expect(Self.wrong(facts).first?.fix == "systemctl --user enable --now volume-guard")
        facts.service = .noSystemd
        #expect(Self.wrong(facts).first?.fix?.contains("volume-guard run") == true)
        #expect(Diagnosis(facts).findings.contains { $0.link == .service && $0.status == .unknown })
        facts.daemon = .silent(socket: "/run/user/1000/volume-guard.sock", why: .noReply, listeners: [])
        #expect(Self.wrong(facts).first?.message.contains("does not answer") == true)
    }

    @Test("A daemon that does not answer is named by its pid, systemd's socket aside, and ended by it")
    func silentDaemonNamed() {
        var facts = Self.booth()
        let listeners = [NodeHolder(pid: 700, command: "systemd"), NodeHolder(pid: 812, command: "volume-guard")]
        facts.daemon = .silent(socket: "/run/user/1000/volume-guard.sock", why: .noReply, listeners: listeners)
        let daemon = Self.wrong(facts).first { $0.link == .daemon }
        #expect(daemon?.message == "does not answer at /run/user/1000/volume-guard.sock (stopped or stuck): volume-guard (pid 812)")
        #expect(daemon?.fix?.hasPrefix("stop it: `kill 812` (`kill -KILL 812` if it stays), then systemctl --user start volume-guard") == true)
        facts.daemon = .silent(socket: "/run/user/1000/volume-guard.sock", why: .fileReplaced, listeners: listeners)
        let replaced = Self.wrong(facts).first { $0.link == .daemon }
        #expect(replaced?.message.contains("refuses connections, yet a socket bound there listens: volume-guard (pid 812)") == true)
    }

    @Test("A device held by the daemon that does not answer is the daemon's, not another program's")
    func deviceOfSilentDaemon() {
        var facts = Self.booth()
        let daemon = NodeHolder(pid: 812, command: "volume-guard")
        facts.daemon = .silent(socket: "/run/user/1000/volume-guard.sock", why: .noReply, listeners: [daemon])
        facts.devices?.nodes[Self.consumer.node] = NodeFacts(readable: true, openBySilentDaemon: [daemon])
        let device = Self.wrong(facts).first { $0.subject == Self.consumer.name }
        #expect(device?.message == "/dev/input/event6, 2717:0040: held by the daemon, volume-guard (pid 812), which does not answer: its presses go nowhere")
        #expect(device?.message.contains("another program") == false)
        #expect(device?.fix?.hasPrefix("stop it: `kill 812`") == true)
    }

    @Test("The daemon's socket is found in /proc/net/unix by the path it was bound to, listening only")
    func listeningSockets() {
        let table = """
            Num       RefCount Protocol Flags    Type St Inode Path
            0000000000000000: 00000002 00000000 00010000 0001 01 31337 /run/user/1000/volume-guard.sock
            0000000000000000: 00000003 00000000 00000000 0001 03 31338 /run/user/1000/volume-guard.sock
            0000000000000000: 00000002 00000000 00010000 0001 01 40000 /run/user/1000/volume guard.sock
            0000000000000000: 00000002 00000000 00010000 0001 01 40001 /run/user/1000/pulse/native
            0000000000000000: 00000002 00000000 00000000 0002 01 40002
            """
        #expect(DaemonFacts.listeningInodes(in: table, boundTo: "/run/user/1000/volume-guard.sock") == ["31337"], "a connected one is no listener")
        #expect(DaemonFacts.listeningInodes(in: table, boundTo: "/run/user/1000/volume guard.sock") == ["40000"], "a path with a space")
        #expect(DaemonFacts.listeningInodes(in: table, boundTo: "/run/user/1000/other.sock").isEmpty)
    }

    @Test("systemctl is-enabled's answer for one unit: its word, not-found for a missing unit, nil for no word")
    func unitState() {
        #expect(ServiceFacts.state(answering: ["enabled"]) == "enabled")
        #expect(ServiceFacts.state(answering: ["not-found"]) == "not-found")
        #expect(
            ServiceFacts.state(answering: ["Failed to get unit file state for volume-guard.socket: No such file or directory"]) == "not-found")
        #expect(ServiceFacts.state(answering: ["Failed to connect to bus: No medium found"]) == nil)
        #expect(ServiceFacts.state(answering: []) == nil)
    }

    @Test("A paused daemon is wrong, but for while-subscribed with nobody subscribed")
    func pausedDaemon() throws {
        var facts = Self.booth()
        guard case .answered(var status) = facts.daemon else { throw NotAnswered() }
        status.state = .paused
        facts.daemon = .answered(status)
        #expect(Self.wrong(facts).first?.fix == "volume-guard resume")
        facts.config.options.mode = .whileSubscribed
        #expect(Diagnosis(facts).isHealthy)
    }

    @Test("A configured device not present is named, with how to connect it")
    func missingDevice() {
        var facts = Self.booth()
        facts.config.options.devices = ["AB Shutter3", "Presenter"]
        let wrong = Self.wrong(facts)
        #expect(wrong.count == 1)
        #expect(wrong.first?.subject == "Presenter")
        #expect(wrong.first?.message == "not present")
        #expect(wrong.first?.fix?.contains("bluetoothctl connect ADDRESS") == true)
        facts.config.options.devices = ["AB Shutter3", "2a:07:98:10:34:9c"]
        #expect(Self.wrong(facts).first?.fix?.contains("bluetoothctl connect 2a:07:98:10:34:9c`)") == true)
    }

    @Test("An unreadable node gets the rule to install: by the group with no seat, by the seat with one")
    func unreadableNode() {
        var facts = Self.booth()
        facts.devices?.nodes[Self.consumer.node] = NodeFacts(readable: false)
        facts.devices?.rule = .absent
        let install = "volume-guard devices --udev-rule --access group | sudo tee \(UdevRule.path) && \(UdevRule.applyCommand)"
        #expect(Self.wrong(facts).map(\.subject) == ["AB Shutter3 Consumer Control"])
        #expect(Self.wrong(facts).first?.message.contains("booth cannot read it (permission denied)") == true)
        #expect(Self.wrong(facts).first?.fix == install)
        facts.user.seats = ["seat0"]
        #expect(Self.wrong(facts).first?.fix == install.replacing(" --access group", with: ""))
    }

    @Test("An unreadable node that the installed rule covers: applied yet, or a seat's rule with no one at the seat")
    func unreadableButCovered() {
        var facts = Self.booth()
        facts.devices?.nodes[Self.consumer.node] = NodeFacts(readable: false)
        #expect(Self.wrong(facts).first?.fix?.hasPrefix(UdevRule.applyCommand) == true)
        facts.devices?.rule = .installed(path: UdevRule.path, text: Self.seatRule)
        #expect(Self.wrong(facts).first?.message.contains("the user logged in at the seat, and booth is on none") == true)
        #expect(Self.wrong(facts).first?.fix?.contains("--access group") == true)
        // Another user's group rule covers nothing of this user's.
        facts.devices?.rule = .installed(path: UdevRule.path, text: Self.groupRule.replacing("\"booth\"", with: "\"kiosk\""))
        #expect(Self.wrong(facts).first?.message.contains("no udev rule gives it to booth") == true)
    }

    @Test("A remote grabbed by another program: the program named, and how to stop it")
    func grabbedElsewhere() throws {
        var facts = Self.booth()
        guard case .answered(var status) = facts.daemon else { throw NotAnswered() }
        status.devices?[0].state = .refused
        status.devices?[0].problem = DeviceProblem(error: "another program grabbed it", fix: "stop the program that holds it")
        facts.daemon = .answered(status)
        facts.devices?.nodes[Self.consumer.node] = NodeFacts(readable: true, grab: .grabbed(holders: [NodeHolder(pid: 42, command: "evtest")]))
        let wrong = Self.wrong(facts)
        #expect(wrong.map(\.subject) == ["AB Shutter3 Consumer Control"])
        #expect(wrong.first?.message.contains("evtest (pid 42)") == true)
        #expect(wrong.first?.fix?.contains("kill 42") == true)
        facts.devices?.nodes[Self.consumer.node] = NodeFacts(readable: true, grab: .grabbed(holders: []))
        #expect(Self.wrong(facts).first?.fix == "stop it: `sudo fuser -v /dev/input/event6` names it")
        // Without the probe, the daemon's own account of the refusal.
        facts.devices?.nodes[Self.consumer.node] = NodeFacts(readable: true)
        #expect(Self.wrong(facts).first?.message.hasSuffix("volume-guard cannot take it: another program grabbed it") == true)
    }

    @Test("A device the running daemon does not take: it runs with other devices than the file's")
    func notTaken() throws {
        var facts = Self.booth()
        guard case .answered(var status) = facts.daemon else { throw NotAnswered() }
        status.devices = []
        facts.daemon = .answered(status)
        #expect(Self.wrong(facts).map(\.fix) == ["systemctl --user restart volume-guard", "systemctl --user restart volume-guard"])
    }

    @Test("The service: enabled, the socket alone when something must run from the start, lingering with no seat")
    func service() {
        var facts = Self.booth()
        facts.user.lingering = false
        #expect(Self.wrong(facts).map(\.fix) == ["sudo loginctl enable-linger booth"])
        facts.user.seats = ["seat0"]
        #expect(Diagnosis(facts).isHealthy)
        facts.service = .answered(service: "disabled", socket: "enabled")
        #expect(Self.wrong(facts).map(\.fix) == ["systemctl --user enable --now volume-guard"])
        facts.config.options = Options()
        facts.programs = []
        facts.devices = nil
        facts.daemon = .absent(socket: "s")
        #expect(!Self.wrong(facts).contains { $0.link == .service })
        facts.service = .unreachable(reason: "Failed to connect to bus")
        #expect(Diagnosis(facts).findings.contains { $0.link == .service && $0.status == .unknown })
    }

    @Test("An action's program missing or not executable")
    func actions() {
        var facts = Self.booth()
        facts.programs = [ProgramFacts(action: "photo", program: "gphoto2", found: .missing)]
        #expect(Self.wrong(facts).map(\.message) == ["gphoto2 is not found in PATH"])
        facts.programs = [ProgramFacts(action: "photo", program: "/opt/snap", found: .notExecutable(path: "/opt/snap"))]
        #expect(Self.wrong(facts).map(\.fix) == ["chmod +x /opt/snap"])
    }

    @Test("The sink: its server, its default, the desktop's popup and its fix")
    func sink() {
        var facts = Self.booth()
        facts.config.options = Options()
        facts.programs = []
        facts.devices = nil
        facts.audioServer = .answered(server: "pulseaudio 16.1", defaultSink: "guard_a", sinks: ["guard_a"])
        #expect(Diagnosis(facts).isHealthy)
        #expect(Diagnosis(facts).findings.map(\.link).prefix(5) == [.config, .daemon, .audioServer, .defaultSink, .volumePopup])
        facts.desktops = [.mate(osd: true), .kde(plasmaparc: nil, writer: "kwriteconfig6"), .gnome]
        #expect(
            Self.wrong(facts).map(\.fix) == [
                "gsettings set org.mate.SettingsDaemon.plugins.media-keys enable-osd false",
                "kwriteconfig6 --file plasmaparc --group General --key VolumeOsd false",
                "take the keys from the remote itself: source = \"input\" and its devices in the config file (`volume-guard devices` lists them)",
            ])
        facts.desktops = [.mate(osd: false), .kde(plasmaparc: "[General]\nVolumeOsd=false\n", writer: "kwriteconfig5")]
        #expect(Diagnosis(facts).isHealthy)
        facts.desktops = [.mate(osd: nil)]
        #expect(Diagnosis(facts).findings.contains { $0.link == .volumePopup && $0.status == .unknown })
        facts.audioServer = .answered(server: "pulseaudio 16.1", defaultSink: nil, sinks: ["guard_a"])
        #expect(Self.wrong(facts).map(\.fix) == ["pactl set-default-sink guard_a"])
        facts.audioServer = .unreachable(reason: "Connection refused")
        #expect(Self.wrong(facts).map(\.link) == [.audioServer])
    }

    @Test("GNOME with both sources: the grabbed devices make no popup")
    func gnomeWithBoth() {
        var facts = Self.booth()
        facts.config.options.source = .both
        facts.audioServer = .answered(server: "pulseaudio 16.1", defaultSink: "guard_a", sinks: ["guard_a"])
        facts.desktops = [.gnome]
        #expect(Diagnosis(facts).isHealthy)
    }

    @Test("Plasma's popup is off only for VolumeOsd=false in [General]")
    func plasmaparc() {
        #expect(Diagnosis.volumeOSDIsOff(plasmaparc: "[General]\nVolumeOsd = false\n"))
        #expect(!Diagnosis.volumeOSDIsOff(plasmaparc: "[Other]\nVolumeOsd=false\n"))
        #expect(!Diagnosis.volumeOSDIsOff(plasmaparc: "[General]\nVolumeOsd=true\n"))
        #expect(!Diagnosis.volumeOSDIsOff(plasmaparc: ""))
    }

    @Test("A mistake in the config file, an HTTP listener the running daemon lacks")
    func configAndHTTP() throws {
        var facts = Self.booth()
        facts.config.mistake = "config.toml:3: step: must be a number"
        facts.http = HTTPFacts(address: "127.0.0.1:8370", connected: .failure(ConnectFailure(reason: "connection refused")))
        let wrong = Self.wrong(facts)
        #expect(wrong.map(\.link) == [.config, .http])
        #expect(wrong.last?.fix == "systemctl --user restart volume-guard")
        #expect(wrong.last?.text.hasPrefix("FAIL  http: nothing listens at 127.0.0.1:8370 (connection refused)") == true)
        facts.http?.connected = .success(())
        #expect(Self.wrong(facts).map(\.link) == [.config])
    }

    @Test("The pairings: damaged, readable by others, none for a listener that needs tokens, some for one no tablet reaches")
    func pairings() {
        var facts = Self.booth()
        let path = "/home/booth/.local/state/volume-guard/pairings.json"
        facts.config.options.http = "0.0.0.0:8370"
        facts.pairings = PairingsFacts(path: path, clients: .success(["tablet"]), mode: 0o600)
        #expect(Diagnosis(facts).isHealthy)
        #expect(
            Diagnosis(facts).findings.last?.message
                == "1 paired (tablet); the listener at 0.0.0.0:8370 serves the network, every request with a paired client's token")
        facts.pairings?.mode = 0o644
        #expect(Self.wrong(facts).map(\.fix) == ["chmod 600 \(path)"])
        facts.pairings = PairingsFacts(path: path, clients: .success([]), mode: nil)
        #expect(Self.wrong(facts).map(\.fix) == ["volume-guard pair NAME --role trigger, and open the URL it prints on the tablet"])
        facts.pairings?.clients = .failure(PairingsFileError(path: path, problem: "is not a pairings file"))
        #expect(Self.wrong(facts).first?.message == "the pairings file \(path) is not a pairings file")
        facts.config.options.http = "127.0.0.1:8370"
        facts.pairings = PairingsFacts(path: path, clients: .success(["tablet"]), mode: 0o600)
        #expect(
            Self.wrong(facts).map(\.fix) == [#"set http = "0.0.0.0:8370" in the config file, then systemctl --user restart volume-guard"#])
        facts.pairings?.clients = .success([])
        #expect(Diagnosis(facts).isHealthy, "on loopback, no token is needed")
    }

    @Test("The broker: refused credentials, a certificate, nothing listening, no password file, each with its fix")
    func broker() {
        var facts = Self.booth()
        facts.broker = BrokerFacts(broker: "mqtt://pi.local:1883", trial: .connected)
        #expect(Diagnosis(facts).isHealthy)
        facts.broker?.trial = .refused(code: 5, reason: "not authorised")
        #expect(
            Self.wrong(facts).map(\.text) == [
                "FAIL  mqtt: mqtt://pi.local:1883: the broker refused the connection: not authorised — check mqtt-user and the password in mqtt-password-file"
            ])
        facts.broker?.trial = .failed(reason: "certificate verify failed", tls: true)
        #expect(Self.wrong(facts).first?.fix?.contains("mqtt-ca-file") == true)
        facts.broker?.trial = .failed(reason: "connection refused", tls: false)
        #expect(Self.wrong(facts).first?.fix == "check that a broker runs at mqtt://pi.local:1883 and that this machine reaches it")
        facts.broker?.trial = .noPassword("cannot read /home/booth/.mqtt-password: no such file")
        #expect(Self.wrong(facts).first?.text.hasPrefix("FAIL  mqtt: cannot read /home/booth/.mqtt-password") == true)
    }
}

/// The booth's daemon, which always answers, did not.
private struct NotAnswered: Error {}
