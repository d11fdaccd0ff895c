import SystemPackage

/// The symbolic links udev makes to event nodes under `/dev/input/by-id` and `/dev/input/by-path`:
/// names that stay the same across reboots and reconnections, for the config file to name a device by.
/// Either directory may be missing (no udev, as in a container or a minimal VM, or no device of that
/// kind); most Bluetooth devices have no by-id link.
struct StableLinks {
    /// Each link's path, by the node it points to.
    private var linksByNode: [String: [String]] = [:]

    init(devices: String) {
        for kind in ["by-id", "by-path"] {
            let directory = "\(devices)/\(kind)"
            for entry in Directory.entries(directory).sorted() {
                let link = "\(directory)/\(entry)"
                guard let target = Directory.linkTarget(link) else { continue }
                linksByNode[Self.resolve(target, in: directory), default: []].append(link)
            }
        }
    }

    /// The links to `node`, by-id first, each kind by name.
    func paths(to node: String) -> [String] {
        linksByNode[FilePath(node).lexicallyNormalized().string] ?? []
    }

    /// A link's target as a path: udev's links are relative (`../event3`), from the link's directory.
    static func resolve(_ target: String, in directory: String) -> String {
        let path = FilePath(target)
        return (path.isAbsolute ? path : FilePath(directory).pushing(path)).lexicallyNormalized().string
    }
}
