import Glibc

/// The few file system reads the scan needs, each failing softly to nil or nothing: a device may go
/// away between reading its directory and reading its files, and that is no error, only no device.
/// The package's: `doctor` reads /proc with them, where a process may end between two reads too.
package enum Directory {
    /// The names in `path`, without `.` and `..`; none when it cannot be read.
    package static func entries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A small regular file's text, read to its end: sysfs files report a size of 4096, whatever they hold.
    /// Nil for anything else, and for more than `sizeLimit` bytes: run as root (`doctor`, `learn`), a FIFO
    /// or `/dev/zero` at the path must neither hang the reader nor fill its memory.
    package static func contents(_ path: String) -> String? {
        // Nonblocking: a FIFO's open would wait for a writer.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            errno = EINVAL
            return nil
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= sizeLimit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
        errno = EFBIG
        return nil
    }

    /// The most `contents` reads: a sysfs or /proc file holds a page at most, a udev rule file a few kB.
    package static let sizeLimit = 64 * 1024

    /// Where the symbolic link at `path` points, as written in the link; nil for anything else.
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = readlink(path, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
