import GuardSettings
import VolumeGuardCore
import Testing
import VolumeGuardDaemon

@Suite("Shedding the start-up pages of the executable and its libraries")
struct MappedCodeTests {
    @Test("The clean mappings are dropped, and the code and data they held come back as they run")
    func shedKeepsWorking() throws {
        let launch = Launch(flags: Options(step: 5, mode: .whileSubscribed), file: Options(history: 64), rereadFile: ["volume-guard"])
        #expect(MappedCode.shed() >= 2, "at least the code mappings of the executable and of libc")
        // Code, constants and relocated metadata of this executable, used after the drop.
        #expect(try Launch(decoding: launch.encoded()) == launch)
        #expect(launch.configuration(environment: [:]).historyCapacity == 64)
    }
}
