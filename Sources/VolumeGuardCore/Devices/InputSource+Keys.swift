import GuardProtocol

/// A node's key events: downs and ups while grabbed, the keys held before the grab, the kernel's own
/// releases, and the keys read again after dropped events.
extension InputSource {
    mutating func key(_ code: UInt16, value: Int32, on node: String) -> [Action] {
        // Keys the kernel let up, followed by more from the device: the device is still there.
        settleKernelReleases(node, before: nil) + keyEvent(code, value: value, on: node)
    }

    mutating func kernelReleased(_ keys: Set<UInt16>, on node: String, at now: Duration) -> [Action] {
        guard var device = devices[node], case .grabbed(let open, let ups) = device.life, !open.dropping else { return [] }
        let held = keys.intersection(open.down)
        guard !held.isEmpty else { return [] }
        let earlier = ups?.keys ?? []
        device.life = .grabbed(open, kernelUps: .init(keys: earlier.union(held), due: now + Self.kernelReleaseGrace))
        devices[node] = device
        return [.wakeUp(after: Self.kernelReleaseGrace)]
    }

    /// Takes the keys the kernel let up for ups, if their grace ended before `now` (or at once for nil).
    mutating func settleKernelReleases(_ node: String, before now: Duration?) -> [Action] {
        guard var device = devices[node], case .grabbed(var open, let ups?) = device.life, now.map({ ups.due <= $0 }) ?? true else { return [] }
        open.down.subtract(ups.keys)
        device.life = .grabbed(open, kernelUps: nil)
        devices[node] = device
        return ups.keys.sorted().map { .keyUp($0, device.ref, .keyUp) }
    }

    private mutating func keyEvent(_ code: UInt16, value: Int32, on node: String) -> [Action] {
        guard var device = devices[node], var keys = device.keys, !keys.dropping else { return [] }
        switch device.life {
        case .waiting, .grabbing:
            // Not the daemon's yet: its keys still reach everyone else, so they are no presses.
            if value == 0 { keys.down.remove(code) } else { keys.down.insert(code) }
            device.keys = keys
            devices[node] = device
            return grabIfIdle(node)
        case .grabbed:
            guard value != 2 else { return [] }
            device.lastKey = code
            guard configuration.wants(code) else {
                devices[node] = device
                return []
            }
            if value == 0 {
                keys.down.remove(code)
                device.keys = keys
                devices[node] = device
                return [.keyUp(code, device.ref, .keyUp)]
            }
            keys.down.insert(code)
            device.keys = keys
            devices[node] = device
            return [.keyDown(code, device.ref)]
        case .closed, .opening, .refused:
            return []
        }
    }

    mutating func dropped(_ node: String) -> [Action] {
        devices[node]?.keys?.dropping = true
        return []
    }

    mutating func caughtUp(_ node: String) -> [Action] {
        guard devices[node]?.keys?.dropping == true else { return [] }
        devices[node]?.keys?.dropping = false
        return [.readKeys(node)]
    }

    mutating func keysRead(_ node: String, _ keys: Set<UInt16>) -> [Action] {
        guard var device = devices[node] else { return [] }
        switch device.life {
        case .waiting:
            device.keys?.down = keys
            devices[node] = device
            return grabIfIdle(node)
        case .grabbed(let open, _):
            let wanted = keys.filter(configuration.wants)
            let ups = open.down.subtracting(wanted).sorted().map { Action.keyUp($0, device.ref, .keyUp) }
            let downs = wanted.subtracting(open.down).sorted().map { Action.keyDown($0, device.ref) }
            device.keys?.down = wanted
            devices[node] = device
            return ups + downs
        case .closed, .opening, .grabbing, .refused:
            return []
        }
    }
}
