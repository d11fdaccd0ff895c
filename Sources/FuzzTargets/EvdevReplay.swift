import GuardProtocol
import InputDevices
import VolumeGuardCore

/// An event node's reads made of fuzz bytes, played to the guard's machine as a shell would: a remote
/// found, opened and grabbed, its reads split into frames (`EvdevFrame.split`), each frame's keys, drops
/// and the kernel's releases fed in, the keys read again when asked, and every timer fired in time.
///
/// The bytes are records of 8: milliseconds since the last (one byte), the type (one byte: 0 EV_SYN,
/// 1 EV_KEY, others as they are), the code (two) and the value (four). A record whose first byte is 255
/// ends a read.
struct EvdevReplay {
    static let node = "/dev/input/event7"
    static let remote = InputDeviceInfo(node: node, name: "AB Shutter3 Consumer Control", vendor: 0x2717, product: 0x0040, keys: [114, 115, 28])

    private let loop: MachineLoop<GuardMachine>
    private var now = Duration.zero
    private var timer: Duration?
    /// The keys down on the node, as the kernel would tell EVIOCGKEY.
    private var down: Set<UInt16> = []
    private let reads: [[InputEvent]]

    init(_ bytes: [UInt8]) {
        let configuration = GuardMachine.Configuration(
            source: .input, input: InputSource.Configuration(matches: [DeviceMatch("AB Shutter3")!], keys: [28]))
        loop = MachineLoop(GuardMachine(configuration: configuration))
        var reads: [[InputEvent]] = [[]]
        var offset = 0
        while offset + 8 <= bytes.count {
            let record = bytes[offset..<offset + 8].map { $0 }
            offset += 8
            if record[0] == 255 {
                reads.append([])
                continue
            }
            let type = record[1] == 0 ? InputEvent.synchronization : record[1] == 1 ? InputEvent.key : UInt16(record[1])
            let code = UInt16(record[2]) | UInt16(record[3]) << 8
            let value = Int32(bitPattern: UInt32(record[4]) | UInt32(record[5]) << 8 | UInt32(record[6]) << 16 | UInt32(record[7]) << 24)
            let milliseconds = Int(record[0])
            reads[reads.count - 1].append(
                InputEvent(seconds: milliseconds / 1000, microseconds: milliseconds % 1000 * 1000, type: type, code: code, value: value))
        }
        self.reads = reads
    }

    mutating func run() {
        feed(.start)
        for read in reads {
            for event in read {
                now += .milliseconds(event.seconds * 1000 + event.microseconds / 1000)
                fireTimer()
                if event.isKey { if event.value == 0 { down.remove(event.code) } else { down.insert(event.code) } }
            }
            for frame in EvdevFrame.split(read) {
                switch frame {
                case .dropped: feed(.device(.dropped(Self.node)))
                case .kernelReleased(let keys): feed(.device(.kernelReleased(keys, on: Self.node)))
                case .device(let events):
                    for event in events where event.isKey { feed(.device(.key(event.code, value: event.value, on: Self.node))) }
                }
            }
            feed(.device(.caughtUp(Self.node)))
        }
        now += .seconds(10)
        fireTimer()
        feed(.shutdown)
    }

    private mutating func fireTimer() {
        while let due = timer, due <= now {
            timer = nil
            feed(.timerFired(due: due))
        }
    }

    /// Feeds `input`, and what the shell would feed back of each effect, on the daemon's `MachineLoop`.
    private mutating func feed(_ input: GuardMachine.Input) {
        let (now, down) = (now, down)
        loop.handle(input, at: { now }) { effect in
            switch effect {
            case .watchDevices: return [.device(.scanned([Self.remote]))]
            case .open(let node): return [.device(.opened(node, as: Self.remote, keysDown: down))]
            case .grab(let node): return [.device(.grabbed(node))]
            case .readKeys(let node): return [.device(.keysRead(node, down))]
            case .setTimer(let due):
                timer = min(timer ?? due, due)
                return []
            default: return []
            }
        }
    }
}
