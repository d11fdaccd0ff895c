import InputDevices
import PulseBridge
import SystemPackage
import VolumeGuardCore

/// The input source's file descriptors: the device nodes open now, and the watch on `/dev/input`, each
/// polled by the mainloop the guard runs on. It decides nothing: `InputSource` says what to open, grab
/// and close, and hears what came of it.
struct DeviceFiles {
    private struct Open {
        var file: EvdevFile
        var watch: PulseMainloop.Watch
    }

    private var nodes: [String: Open] = [:]
    private var directory: (watch: DirectoryWatch, poll: PulseMainloop.Watch)?

    /// Opens `node`, reads what device it is and which keys are down, and polls it, calling `readable` on
    /// the mainloop's thread when it has events.
    mutating func open(_ node: String, readable: @escaping () -> Void) throws(Errno) -> (identity: InputDeviceInfo, down: Set<UInt16>) {
        close(node)
        let file = try EvdevFile.open(node)
        do {
            let opened = (identity: try file.info(), down: try file.keysDown())
            nodes[node] = Open(file: file, watch: PulseMainloop.shared.watch(file.descriptor, readable))
            return opened
        } catch {
            file.close()
            throw error
        }
    }

    func grab(_ node: String) throws(Errno) {
        guard let open = nodes[node] else { throw Errno.operationNotSupportedByDevice }
        try open.file.grab()
    }

    func keysDown(_ node: String) throws(Errno) -> Set<UInt16> {
        guard let open = nodes[node] else { throw Errno.operationNotSupportedByDevice }
        return try open.file.keysDown()
    }

    /// The events `node` has now; nil when it is not open.
    func read(_ node: String) throws(Errno) -> [InputEvent]? {
        try nodes[node]?.file.read()
    }

    /// Stops polling `node` and closes it: its grab ends with it.
    mutating func close(_ node: String) {
        guard let open = nodes.removeValue(forKey: node) else { return }
        open.watch.cancel()
        open.file.close()
    }

    /// Watches `/dev/input` for devices that come and go, calling `changed` on the mainloop's thread.
    mutating func watchDirectory(_ changed: @escaping () -> Void) throws(Errno) {
        let watch = try DirectoryWatch()
        directory = (watch, PulseMainloop.shared.watch(watch.descriptor, changed))
    }

    /// Reads what the directory watch saw; true when a device may have come or gone.
    mutating func directoryChanged() -> Bool {
        directory?.watch.drain() ?? false
    }

    /// Closes everything.
    mutating func closeAll() {
        for node in nodes.keys { close(node) }
        directory?.poll.cancel()
        directory?.watch.close()
        directory = nil
    }
}
