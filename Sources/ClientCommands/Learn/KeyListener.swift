import Glibc
import InputDevices
import SystemPackage
import VolumeGuardCore

/// Reads the keys of every input device with keys this process may read, without grabbing any: `learn`
/// listens where the remote may be, and takes nothing from the desktop.
///
/// Devices come and go while it listens: a Bluetooth remote asleep connects at its first press, on new
/// nodes, so `rescan` opens those (when `/dev/input` says so) and forgets the gone. Reading is nonblocking:
/// `learn` reads when poll(2) says a device has something (`descriptors`, `Wakeup`).
struct KeyListener {
    /// The devices open, by node.
    private(set) var open: [String: (file: EvdevFile, info: InputDeviceInfo)] = [:]
    /// The devices with keys present that this process may not read.
    private(set) var unreadable: [InputDeviceInfo] = []

    /// Opens the devices of `present` not open yet, and closes those gone or replaced by another device.
    /// Returns the keys down on the devices it opened: a key held since before learn listened, on a device
    /// that sends no repeats, is known by that alone.
    ///
    /// A device opened while `listening` came while learn listened: a remote that the press being made
    /// woke, so a key down at its open is that press (`keyDown`), however soon it is let go. On the devices
    /// there at the start it may be the Enter that started learn (`keyDownAtOpen`, which `Learning` times).
    mutating func rescan(_ present: [InputDeviceInfo], listening: Bool) -> [Learning.Input] {
        for (node, device) in open where !present.contains(where: { $0.node == node && device.info.isSameDevice(opened: $0) }) {
            device.file.close()
            open[node] = nil
        }
        unreadable = []
        var down: [Learning.Input] = []
        for info in present where open[info.node] == nil {
            do {
                let file = try EvdevFile.open(info.node)
                open[info.node] = (file, info)
                down += ((try? file.keysDown()) ?? []).sorted().map { listening ? .keyDown(info, key: $0) : .keyDownAtOpen(info, key: $0) }
            } catch .permissionDenied {
                unreadable.append(info)
            } catch {
                continue
            }
        }
        return down
    }

    /// The keys that went down or up since the last look, in the order read. A repeat counts as a down:
    /// a key held since before learn listened is heard by its repeats, where its device sends them. A
    /// device that fails to read (gone) is closed; the next scan may find it again.
    mutating func keys() -> [Learning.Input] {
        var keys: [Learning.Input] = []
        for (node, device) in open.sorted(by: { $0.key < $1.key }) {
            do {
                keys += try device.file.read().filter(\.isKey).map { event in
                    event.value == 0 ? .keyUp(device.info, key: event.code) : .keyDown(device.info, key: event.code)
                }
            } catch {
                device.file.close()
                open[node] = nil
            }
        }
        return keys
    }

    /// The open devices' descriptors, for poll(2).
    var descriptors: [Int32] { open.values.map(\.file.descriptor) }

    func close() {
        for device in open.values { device.file.close() }
    }
}
