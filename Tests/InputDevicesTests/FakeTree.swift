import Foundation

/// A temporary directory for a fake sysfs or /dev tree, removed by `remove()`.
struct FakeTree {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("input-devices-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func path(_ relative: String) -> String { "\(root)/\(relative)" }

    /// Writes `text` to `relative`, making its directories.
    func write(_ relative: String, _ text: String) throws {
        let url = URL(fileURLWithPath: path(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: false, encoding: .utf8)
    }

    func directory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    func link(_ relative: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path(relative), withDestinationPath: target)
    }

    func remove(_ relative: String) throws {
        try FileManager.default.removeItem(atPath: path(relative))
    }

    /// A sysfs input device under `sysfs/eventN/device`, as the kernel writes its files.
    /// `bus` and `uniq` are left out when nil, as some drivers and older kernels do.
    func sysfsDevice(_ event: String, name: String, vendor: String, product: String, bus: String? = nil, uniq: String? = nil, keys: String) throws {
        let device = "sysfs/\(event)/device"
        try write("\(device)/name", name + "\n")
        if let bus { try write("\(device)/id/bustype", bus + "\n") }
        if let uniq { try write("\(device)/uniq", uniq + "\n") }
        try write("\(device)/id/vendor", vendor + "\n")
        try write("\(device)/id/product", product + "\n")
        try write("\(device)/capabilities/key", keys + "\n")
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}
