import GuardProtocol
import InputDevices
import Logging
import SystemPackage
import VolumeGuardCore

/// Feeding the input source and performing what it returns: the device nodes' IO, on the mainloop the
/// guard runs on, so that a key event reaches the pipeline in the same turn it is read.
extension GuardService {
    /// Watches `/dev/input` and takes the devices present, with `input` or `both`.
    func startInput() {
        guard input != nil else { return }
        do {
            try deviceFiles.watchDirectory { [self] in assumeIsolated { $0.directoryChanged() } }
        } catch {
            logger.error(
                "cannot watch /dev/input: a device that appears later is found only when the daemon restarts",
                metadata: ["error": "\(error)"])
        }
        scanDevices()
    }

    /// Lets every device go: the daemon is stopping.
    func stopInput() {
        feedInput { input, _ in input.shutdown() }
        deviceFiles.closeAll()
    }

    /// Hands the input source one event, with the time it is handled, and performs what it returns.
    func feedInput(_ event: (inout InputSource, Duration) -> [InputSource.Action]) {
        guard input != nil else { return }
        turn {
            for action in event(&input!, now) {
                perform(action)
            }
        }
    }

    private func directoryChanged() {
        if deviceFiles.directoryChanged() { scanDevices() }
    }

    private func scanDevices() {
        let present = InputDirectory.scan()
        feedInput { input, now in input.scanned(present, at: now) }
    }

    private func perform(_ action: InputSource.Action) {
        switch action {
        case .open(let node):
            do {
                let opened = try deviceFiles.open(node) { [self] in assumeIsolated { $0.readDevice(node) } }
                feedInput { input, _ in input.opened(node, as: opened.identity, keysDown: opened.down) }
            } catch {
                refused(node, error)
            }
        case .grab(let node):
            do {
                try deviceFiles.grab(node)
                feedInput { input, _ in input.grabbed(node) }
            } catch {
                refused(node, error)
            }
        case .close(let node):
            deviceFiles.close(node)
        case .readKeys(let node):
            do {
                let down = try deviceFiles.keysDown(node)
                feedInput { input, _ in input.keysRead(node, down) }
            } catch {
                feedInput { input, _ in input.gone(node) }
            }
        case .keyDown(let key, let device):
            pass(pipeline.keyDown(key, on: device, at: now))
        case .keyUp(let key, let device, let cause):
            pass(pipeline.keyUp(key, on: device, cause: cause, at: now))
        case .wakeUp(let delay):
            wake(.input, after: delay)
        case .report(let report):
            log(report)
        }
    }

    /// Reads the events `node` has now.
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
            feedInput { input, _ in input.gone(node) }
            return
        }
        for frame in EvdevFrame.split(events) {
            switch frame {
            case .kernelReleased(let ups):
                feedInput { input, now in input.kernelReleased(ups, on: node, at: now) }
            case .device(let events):
                for event in events {
                    if event.isKey {
                        feedInput { input, _ in input.key(event.code, value: event.value, on: node) }
                    } else if event.isDropped {
                        feedInput { input, _ in input.dropped(node) }
                    }
                }
            }
        }
        feedInput { input, _ in input.caughtUp(node) }
    }

    private func refused(_ node: String, _ error: Errno) {
        guard let info = input?.devices[node]?.info else { return }
        let (text, fix) = refusal(error, node: node, info: info)
        feedInput { input, now in input.refused(node, error: text, fix: fix, at: now) }
    }

    private func log(_ report: InputReport) {
        switch report {
        case .grabbed(let device, let match):
            logger.info("input device grabbed: its keys are presses", metadata: ["device": "\(device.name)", "path": "\(device.node)", "match": "\(match)"])
        case .refused(let device, let error, let fix):
            logger.error("cannot take input device: \(error). \(fix)", metadata: ["device": "\(device.name)", "path": "\(device.node)"])
        case .gone(let device):
            logger.notice("input device gone", metadata: ["device": "\(device.name)", "path": "\(device.node)"])
        }
    }

    /// The input devices for a status reply: each one present that a match meets (under the first it
    /// meets), then each match no device present meets.
    var deviceMessages: [DeviceMessage]? {
        guard let input else { return nil }
        let present = input.devices.values.sorted { $0.info.node < $1.info.node }
        let found = present.map { device in
            DeviceMessage(
                match: device.match.description, name: device.info.name, path: device.info.node, ids: device.info.ids,
                state: device.state, error: device.refusal?.error, fix: device.refusal?.fix, lastKey: device.lastKey.map(KeyNames.name)
            )
        }
        let absent = input.configuration.matches.filter { match in !present.contains { match.matches($0.info) } }
        return found + absent.map { DeviceMessage(match: $0.description, state: .absent) }
    }

    /// For systemd's status line: the first device refused, with its fix.
    var deviceTrouble: String {
        let refused = (input.map { Array($0.devices.values) } ?? []).filter { $0.refusal != nil }.sorted { $0.info.node < $1.info.node }
        guard let first = refused.first, let refusal = first.refusal else { return "" }
        let more = refused.count > 1 ? " (and \(refused.count - 1) more)" : ""
        return "; cannot take \(first.info.name) (\(first.info.node)): \(refusal.error)\(more). \(refusal.fix)"
    }
}
