import GuardProtocol
import InputDevices
import Logging
import SystemPackage
import VolumeGuardCore

/// The input devices' IO, on the mainloop the guard runs on, so that a key event reaches the machine in
/// the same turn it is read.
extension GuardService {
    /// Watches `/dev/input`, and tells the machine the devices present.
    func watchDevices() {
        do {
            try deviceFiles.watchDirectory { [self] in assumeIsolated { $0.directoryChanged() } }
        } catch {
            logger.error(
                "cannot watch /dev/input: a device that appears later is found only when the daemon restarts",
                metadata: ["error": "\(error)"])
        }
        scanDevices()
    }

    private func directoryChanged() {
        if deviceFiles.directoryChanged() { scanDevices() }
    }

    private func scanDevices() {
        handle(.device(.scanned(InputDirectory.scan())))
    }

    func open(_ node: String) {
        do {
            let opened = try deviceFiles.open(node) { [self] in assumeIsolated { $0.readDevice(node) } }
            handle(.device(.opened(node, as: opened.identity, keysDown: opened.down)))
        } catch {
            refused(node, error)
        }
    }

    func grab(_ node: String) {
        do {
            try deviceFiles.grab(node)
            handle(.device(.grabbed(node)))
        } catch {
            refused(node, error)
        }
    }

    func readKeys(_ node: String) {
        do {
            handle(.device(.keysRead(node, try deviceFiles.keysDown(node))))
        } catch {
            handle(.device(.gone(node)))
        }
    }

    /// Reads the events `node` has now, frame by frame.
    private func readDevice(_ node: String) {
        let events: [InputEvent]
        do {
            guard let read = try deviceFiles.read(node) else { return }
            events = read
        } catch {
            // ENODEV: the device is gone (its node goes with it, and the directory watch rescans). A node
            // in error polls readable forever: it is closed now, whatever the source makes of it.
            if error != .operationNotSupportedByDevice {
                logger.warning("cannot read an input device", metadata: ["path": "\(node)", "error": "\(error)"])
            }
            deviceFiles.close(node)
            handle(.device(.gone(node)))
            return
        }
        for frame in EvdevFrame.split(events) {
            switch frame {
            case .kernelReleased(let ups):
                handle(.device(.kernelReleased(ups, on: node)))
            case .dropped:
                handle(.device(.dropped(node)))
            case .device(let events):
                for event in events where event.isKey {
                    handle(.device(.key(event.code, value: event.value, on: node)))
                }
            }
        }
        handle(.device(.caughtUp(node)))
    }

    private func refused(_ node: String, _ error: Errno) {
        guard let info = machine.input?.devices[node]?.info else { return }
        handle(.device(.refused(node, DeviceProblem(error, node: node, info: info))))
    }

    func log(_ report: InputReport) {
        switch report {
        case .grabbed(let device, let match):
            logger.info("input device grabbed: its keys are presses", metadata: ["device": "\(device.name)", "path": "\(device.node)", "match": "\(match)"])
        case .refused(let device, let problem):
            logger.error("cannot take input device: \(problem.error). \(problem.fix)", metadata: ["device": "\(device.name)", "path": "\(device.node)"])
        case .gone(let device):
            logger.notice("input device gone", metadata: ["device": "\(device.name)", "path": "\(device.node)"])
        }
    }

    /// The input devices for a status reply: each one present that a match meets (under the first it
    /// meets), then each match no device present meets.
    var deviceMessages: [DeviceMessage]? {
        guard let input = machine.input else { return nil }
        let present = input.devices.values.sorted { $0.info.node < $1.info.node }
        let found = present.map { device in
            DeviceMessage(
                match: device.match.description, name: device.info.name, path: device.info.node, ids: device.info.ids,
                address: device.info.address, state: device.state, problem: device.refusal?.problem,
                lastKey: device.lastKey.map(KeyNames.name)
            )
        }
        let absent = input.configuration.matches.absent(among: present.map(\.info))
        return found + absent.map { DeviceMessage(match: $0.description, state: .absent) }
    }
}
