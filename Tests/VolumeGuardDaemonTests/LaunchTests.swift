import GuardSettings
import VolumeGuardCore
import Testing
import VolumeGuardDaemon

@Suite("The launch that run hands the daemon")
struct LaunchTests {
    @Test("Every option and action comes through the JSON unchanged")
    func roundTrip() throws {
        let flags = Options(
            sink: "bluez_output.*", guardMute: false, step: 6.25, clampMargin: 2, history: 64, socket: "/run/vg.sock",
            server: "unix:/run/pulse", logLevel: .debug, mode: .whileSubscribed, repeatPeriod: 40, repeatDelay: 600,
            doubleWindow: 250
        )
        let file = Options(actions: [
            Action(name: "shutter", command: ["gphoto2", "--capture-image"], on: [.up], timeout: .milliseconds(2500)),
            Action(shell: "echo \"$VOLUME_GUARD_DIRECTION\" >> ~/presses"),
        ])
        let launch = Launch(flags: flags, file: file, rereadFile: ["/usr/bin/volume-guard", "config", "--json"])
        #expect(try Launch(decoding: launch.encoded()) == launch)
    }

    @Test("Flags win over the file, the file over the defaults")
    func layering() {
        let launch = Launch(flags: Options(step: 10), file: Options(step: 5, history: 16), rereadFile: ["volume-guard"])
        let configuration = launch.configuration(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(configuration.core.keyStep == Options.raw(percent: 10))
        #expect(configuration.historyCapacity == 16)
        #expect(configuration.socketPath == "/run/user/1000/volume-guard.sock")
    }
}
