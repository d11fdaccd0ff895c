import Glibc
import GuardProtocol
import InputDevices
import Synchronization
import VolumeGuardClient
import VolumeGuardCore

/// `learn`'s listening: the input devices, the default sink and the running daemon's pause, for as long as
/// `Learning` says, telling the user what it hears as it hears it. Ctrl-C ends it early, the daemon
/// resumed and the sink as it was.
struct Listening {
    let limits: Learning.Limits
    let socketPath: String
    /// The audio server's address, libpulse's syntax; nil for its default.
    let server: String?

    /// What listening found.
    struct Heard {
        var learning: Learning
        /// The input devices with keys present at the end.
        var present: [InputDeviceInfo]
        var sinkWatched: Bool
        var daemonRunning: Bool
        /// What to try when nothing was heard.
        var hints: [String]
        /// Whether a signal (Ctrl-C, a hang-up) ended it.
        var interrupted: Bool
    }

    /// How often the devices are looked for anew when `/dev/input` cannot be watched (no inotify instance
    /// left): a remote that comes is then opened up to this late.
    static let scanInterval: Duration = .seconds(1)
    /// Set by the signals that end the listening (`endingSignals`).
    private static let interrupted = Atomic<Bool>(false)

    func run() async -> Heard {
        let wakeup = Wakeup()
        // Before the pause: a signal from then on ends the listening, and the daemon is resumed.
        Self.trapInterrupts(true)
        let daemon = await DaemonPause.pause(at: socketPath)
        // Watched before the first scan, so that no device comes between the two unseen.
        var watch = try? DirectoryWatch()
        var present = InputDirectory.scan()
        var keys = KeyListener()
        var inputs = keys.rescan(present, listening: false)
        let sink = await SinkListener.start(server: server)
        let changes = Changes(wakeup: wakeup)
        // Everything is listening before the user is asked to press.
        let count = keys.open.count
        printLine("Listening to \(count) device\(count == 1 ? "" : "s") with keys for up to \(format(limits.first)); Ctrl-C ends.")
        let unreadable = keys.unreadable.map { "\"\($0.name)\"" }
        if !unreadable.isEmpty {
            printLine("  Cannot read \(unreadable.joined(separator: ", ")): if the remote is one, run it with sudo.")
        }
        if case .pausedHere = daemon { printLine("  The daemon was guarding: paused while listening, resumed after.") }
        switch sink {
        case .success(let sink): printLine("  Watching the default sink \"\(sink.sink.name)\" (\(sink.serverName)); a change there is put back.")
        case .failure(.noServer): printLine("  No audio server answers: whether a desktop turns the key into a volume change is not seen.")
        case .failure(.noDefaultSink): printLine("  The audio server has no default sink to watch.")
        }
        printLine("Press the button on your remote.")
        var learning = Learning(limits: limits)
        await withTaskGroup(of: Void.self) { group in
            if case .success(let sink) = sink { group.addTask { await sink.watch { direction in changes.append(direction) } } }
            let clock = ContinuousClock()
            let start = clock.now
            var scanned = start
            while !learning.isOver(at: clock.now - start) && !Self.interrupted.load(ordering: .relaxed) {
                inputs += keys.keys() + changes.take().map(Learning.Input.sinkChanged) + [.tick]
                for input in inputs { tell(learning.handle(input, at: clock.now - start), learning) }
                inputs = []
                if watch?.drain() ?? (clock.now - scanned >= Self.scanInterval) {
                    present = InputDirectory.scan()
                    inputs = keys.rescan(present, listening: true)
                    scanned = clock.now
                }
                // Until a device or the watch has something, the sink changes, a signal comes, or a moment is due.
                let rescan = watch == nil ? scanned - start + Self.scanInterval : learning.wakeUp
                let descriptors = keys.descriptors + (watch.map { [$0.descriptor] } ?? [])
                await wakeup.wait(for: descriptors, timeout: min(learning.wakeUp, rescan) - (clock.now - start))
            }
            group.cancelAll()
        }
        learning.refresh(present)
        keys.close()
        watch?.close()
        if case .success(let sink) = sink { await sink.close() }
        await daemon.resume()
        Self.trapInterrupts(false)
        let hints = Self.hints(present: present.count, unreadable: keys.unreadable.count, root: getuid() == 0, daemonHeld: daemon.heldDevices)
        return Heard(
            learning: learning, present: present, sinkWatched: (try? sink.get()) != nil, daemonRunning: daemon.running, hints: hints,
            interrupted: Self.interrupted.load(ordering: .relaxed))
    }

    /// What to try when nothing was heard, given how many devices with keys were `present`, how many of
    /// them this user could not read (`unreadable`), whether it is `root`, and whether the daemon held devices.
    static func hints(present: Int, unreadable: Int, root: Bool, daemonHeld: Bool) -> [String] {
        var hints: [String] = []
        if present == 0 { hints.append("no input device with keys is present: pair the remote and connect it (`bluetoothctl connect ADDRESS`)") }
        if unreadable > 0 && !root { hints.append("this user cannot read \(unreadable) of them: `sudo volume-guard learn`") }
        if daemonHeld { hints.append("the daemon was paused, but another program may hold the remote: `volume-guard devices` says") }
        return hints
    }

    /// Prints what an input taught, as it happens.
    private func tell(_ news: [Learning.News], _ learning: Learning) {
        for item in news {
            switch item {
            case .learned(let heard):
                let more =
                    limits.count.map { learning.learned.count >= $0 } == true ? "" : "; press another key to learn it too, or wait \(format(limits.next))"
                printLine("Learned \(KeyNames.name(heard.key)) on \"\(heard.device.name)\"\(more).")
            case .desktopReacted(let index, let direction):
                printLine("  The desktop turned \(KeyNames.name(learning.learned[index].key)) into a volume change (\(direction.rawValue)); put back.")
            case .sinkAlone(let direction):
                printLine("The default sink's volume changed (\(direction.rawValue)), from a device learn cannot read; put back.")
            }
        }
    }

    func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// The signals that end the listening rather than the process, so that the daemon is resumed first:
    /// Ctrl-C, a TERM, the terminal gone (an SSH session dropped) and Ctrl-\.
    static let endingSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Makes `endingSignals` end the listening (`trapped`), or the process again, as by default. They
    /// are unblocked too: a program that started learn with them blocked would otherwise keep them from it.
    private static func trapInterrupts(_ trapped: Bool) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in endingSignals {
            sigaddset(&set, signal)
            if trapped {
                Glibc.signal(signal) { _ in
                    Listening.interrupted.store(true, ordering: .relaxed)
                    Wakeup.ringFromSignal()
                }
            } else {
                Glibc.signal(signal, SIG_DFL)
            }
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}

/// The sink's changes, from the sink's task to the listening loop, which each wakes.
private final class Changes: Sendable {
    private let directions = Mutex<[Direction]>([])
    private let wakeup: Wakeup

    init(wakeup: Wakeup) {
        self.wakeup = wakeup
    }

    func append(_ direction: Direction) {
        directions.withLock { $0.append(direction) }
        wakeup.ring()
    }

    func take() -> [Direction] {
        directions.withLock { taken in
            defer { taken = [] }
            return taken
        }
    }
}
