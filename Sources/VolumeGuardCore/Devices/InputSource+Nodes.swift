import GuardProtocol

/// A node's life: found by a scan, opened, grabbed once no key on it is down, refused and retried, let
/// go, and forgotten when its device goes.
extension InputSource {
    mutating func scanned(_ present: [InputDeviceInfo], at now: Duration) -> [Action] {
        switch phase {
        case .taking, .paused: break
        case .stopped: return []
        }
        let byNode = Dictionary(present.map { ($0.node, $0) }, uniquingKeysWith: { first, _ in first })
        var actions: [Action] = []
        for (node, device) in devices.sorted(by: { $0.key < $1.key }) where byNode[node].map({ device.info.isSameDevice($0) }) != true {
            // Gone, or its node now belongs to another device.
            actions += forget(node, device, cause: .deviceGone)
        }
        for info in present {
            if var known = devices[info.node] {
                // Its links may be new: udev makes them a moment after the node.
                known.info = info
                devices[info.node] = known
                // A node refused may have been given permissions just now: try it again at once.
                if case .refused = known.life { actions += open(info.node, at: now) }
                continue
            }
            guard let match = configuration.matches.first(where: { $0.matches(info) }) else { continue }
            devices[info.node] = InputDevice(info: info, match: match)
            actions += open(info.node, at: now)
        }
        return actions
    }

    mutating func opened(_ node: String, as identity: InputDeviceInfo, keysDown: Set<UInt16>) -> [Action] {
        guard var device = devices[node], case .opening(let refusal) = device.life else { return [] }
        guard device.info.isSameDevice(opened: identity) else { return [.close(node)] + forget(node, device, cause: .deviceGone) }
        device.life = .waiting(after: refusal, InputDevice.OpenKeys(down: keysDown))
        devices[node] = device
        return grabIfIdle(node)
    }

    mutating func grabbed(_ node: String) -> [Action] {
        guard var device = devices[node], case .grabbing(_, let keys) = device.life else { return [] }
        device.life = .grabbed(InputDevice.OpenKeys(dropping: keys.dropping), kernelUps: nil)
        devices[node] = device
        return [.report(.grabbed(device.ref, match: device.match))]
    }

    mutating func refused(_ node: String, error: String, fix: String, at now: Duration) -> [Action] {
        guard var device = devices[node] else { return [] }
        let previous = device.life.lastRefusal
        let since = previous?.since ?? now
        let retry = previous.map { min($0.retry * 2, Self.slowestRetry) } ?? Self.firstRetry
        let told = previous?.told ?? false
        let overdue = !told && now - since >= Self.refusalGrace
        let wasOpen = device.isOpen
        device.life = .refused(.init(error: error, fix: fix, since: since, retry: retry, due: now + retry, told: told || overdue))
        devices[node] = device
        return (wasOpen ? [.close(node)] : []) + (overdue ? [.report(.refused(device.ref, error: error, fix: fix))] : [])
            + [.wakeUp(after: retry)]
    }

    mutating func gone(_ node: String) -> [Action] {
        guard let device = devices[node] else { return [] }
        return forget(node, device, cause: .deviceGone)
    }

    mutating func open(_ node: String, at now: Duration) -> [Action] {
        guard var device = devices[node], phase == .taking else { return [] }
        switch device.life {
        case .opening, .waiting, .grabbing, .grabbed: return []
        case .closed, .refused: break
        }
        device.life = .opening(after: device.life.lastRefusal)
        devices[node] = device
        return [.open(node)]
    }

    /// Grabs the node once no key on it is down.
    mutating func grabIfIdle(_ node: String) -> [Action] {
        guard var device = devices[node], case .waiting(let refusal, let keys) = device.life, keys.down.isEmpty else { return [] }
        device.life = .grabbing(after: refusal, keys)
        devices[node] = device
        return [.grab(node)]
    }

    /// Closes the node, releasing its keys down, and forgets it.
    private mutating func forget(_ node: String, _ device: InputDevice, cause: ReleaseCause) -> [Action] {
        devices[node] = nil
        return release(device, cause: cause) + (device.isOpen ? [.close(node)] : []) + [.report(.gone(device.ref))]
    }

    /// Closes every open node, releasing its keys down; they stay known, to be opened again.
    mutating func letGo(cause: ReleaseCause) -> [Action] {
        devices.keys.sorted().flatMap { node -> [Action] in
            guard var device = devices[node] else { return [] }
            let actions = release(device, cause: cause) + (device.isOpen ? [.close(node)] : [])
            device.life = .closed
            devices[node] = device
            return actions
        }
    }

    private func release(_ device: InputDevice, cause: ReleaseCause) -> [Action] {
        guard case .grabbed(let open, _) = device.life else { return [] }
        return open.down.sorted().map { .keyUp($0, device.ref, cause) }
    }
}
