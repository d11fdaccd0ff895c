import Glibc
import InputDevices
import SystemPackage
import VolumeGuardCore

/// Reads the keys that go down on every input device with keys this process may read, without grabbing
/// any: `learn` listens where the remote may be, and takes nothing from the desktop.
///
/// Devices come and go while it listens: a Bluetooth remote asleep connects at its first press, on new
/// nodes, so `rescan` opens those and forgets the gone. Reading is nonblocking: `learn` looks every few
/// milliseconds, between which the event loop does the rest.
struct KeyListener {
    /// The devices open, by node.
    private(set) var open: [String: (file: EvdevFile, info: InputDeviceInfo)] = [:]
    /// The devices with keys present that this process may not read.
    private(set) var unreadable: [InputDeviceInfo] = []

    init(_ present: [InputDeviceInfo]) {
        rescan(present)
    }

    /// Opens the devices of `present` not open yet, and closes those gone or replaced by another device.
    mutating func rescan(_ present: [InputDeviceInfo]) {
        for (node, device) in open where !present.contains(where: { $0.node == node && device.info.isSameDevice(opened: $0) }) {
            device.file.close()
            open[node] = nil
        }
        unreadable = []
        for info in present where open[info.node] == nil {
            do {
                open[info.node] = (try EvdevFile.open(info.node), info)
            } catch .permissionDenied {
                unreadable.append(info)
            } catch {
                continue
            }
        }
    }

    /// The keys that went down since the last look (repeats and ups are no news), in the order read.
    /// A device that fails to read (gone) is closed; the next scan may find it again.
    mutating func downs() -> [(InputDeviceInfo, UInt16)] {
        var downs: [(InputDeviceInfo, UInt16)] = []
        for (node, device) in open.sorted(by: { $0.key < $1.key }) {
            do {
                downs += try device.file.read().filter { $0.isKey && $0.value == 1 }.map { (device.info, $0.code) }
            } catch {
                device.file.close()
                open[node] = nil
            }
        }
        return downs
    }

    func close() {
        for device in open.values { device.file.close() }
    }
}
