import Glibc
import GuardSettings
import SystemPackage

/// Reading the config file's bytes, so that no file can hang the reader or fill its memory.
extension ConfigFile {
    /// When the file is read.
    public enum Occasion: Sendable {
        /// As the command starts: a pipe (`--config <(envsubst < t.toml)`) is read once, to its end.
        case start
        /// Again, on a reload: only a regular file (or `/dev/null`), which reads the same every time. A
        /// pipe read at start has nothing left to give, and a FIFO or a device could block forever.
        case reload
        /// Before `learn --write` replaces it: only a regular file, the one kind that a new file can take
        /// the place of.
        case edit
    }

    /// The bytes of the file at `path` as `occasion` reads them (`contents(of:on:)`); nil when there is
    /// none, unless it is `required`. A file that cannot be read, or is not one to read, is a `ConfigError`.
    public static func bytes(at path: String, on occasion: Occasion, required: Bool = false) throws(ConfigError) -> [UInt8]? {
        do {
            return try contents(of: path, on: occasion)
        } catch Errno.noSuchFileOrDirectory where !required {
            return nil
        } catch let refusal as Refusal {
            throw ConfigError(path: path, message: "\(refusal)")
        } catch {
            throw ConfigError(path: path, message: "cannot be read: \(error)")
        }
    }

    /// The most a config file may hold. A config is a few kB; this is room for any real one, and no
    /// more than a reader should hold.
    public static let sizeLimit = 1 << 20
    /// How long a pipe read at start may take to end.
    static let pipeDeadline: Duration = .seconds(10)

    /// The whole file, once it is known to be one that ends within `sizeLimit`: a regular file, a pipe at
    /// start (read until it ends, for at most `pipeDeadline`), or `/dev/null`. Errors are `Errno` (the
    /// system's words: "Permission denied", "Is a directory") or `Refusal` (the file is not one to read).
    static func contents(of path: String, on occasion: Occasion) throws -> [UInt8] {
        // Nonblocking: opening a FIFO that no one writes to returns at once instead of waiting for a writer.
        let file = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec, .nonBlocking])
        defer { try? file.close() }
        var info = stat()
        guard fstat(file.rawValue, &info) == 0 else { throw Errno(rawValue: errno) }
        if occasion == .edit && info.st_mode & S_IFMT != S_IFREG { throw Refusal.notReplaceable }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard info.st_size <= sizeLimit else { throw Refusal.tooLarge(size: Int(info.st_size)) }
            return try readAll(file, pipe: false)
        case S_IFDIR:
            throw Errno.isDirectory
        case S_IFIFO where occasion == .start:
            return try readAll(file, pipe: true)
        case S_IFIFO:
            throw Refusal.pipeOnReload
        case S_IFCHR where info.st_rdev == nullDevice:
            // /dev/null: an empty file.
            return []
        default:
            throw Refusal.notAFile
        }
    }

    /// The device number of /dev/null, whatever path names it.
    private static var nullDevice: dev_t? {
        var info = stat()
        return stat("/dev/null", &info) == 0 ? info.st_rdev : nil
    }

    /// A file that is not one to read as a config file.
    enum Refusal: Error, CustomStringConvertible {
        case tooLarge(size: Int?)
        case pipeOnReload
        case pipeNeverEnded
        case notAFile
        case notReplaceable

        var description: String {
            switch self {
            case .tooLarge(let size):
                "is too large: \(size.map { "\($0) bytes, " } ?? "")more than a config file may hold (\(ConfigFile.sizeLimit) bytes, 1 MiB)"
            case .pipeOnReload:
                "is a pipe: it was read once at start, and a reload reads only a regular file"
            case .pipeNeverEnded:
                "is a pipe that did not end within \(ConfigFile.pipeDeadline.components.seconds) s"
            case .notAFile:
                "is not a regular file (of the devices, only /dev/null is read)"
            case .notReplaceable:
                "is not a regular file, so learn does not replace it: give learn a regular file, or none, with --config"
            }
        }
    }

    /// Reads `file` to its end, or to one byte past `sizeLimit`; a pipe waits for more with poll, up to
    /// `pipeDeadline` in all.
    private static func readAll(_ file: FileDescriptor, pipe: Bool) throws -> [UInt8] {
        let deadline = ContinuousClock.now + pipeDeadline
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if pipe { try waitReadable(file, until: deadline) }
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try file.read(into: $0, retryOnInterrupt: true) }
            } catch Errno.wouldBlock {
                continue
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > sizeLimit { throw Refusal.tooLarge(size: nil) }
        }
    }

    /// Waits until `file` (a pipe) has bytes or has ended, and not past `deadline`.
    private static func waitReadable(_ file: FileDescriptor, until deadline: ContinuousClock.Instant) throws {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw Refusal.pipeNeverEnded }
            var entry = pollfd(fd: file.rawValue, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw Errno(rawValue: errno) }
        }
    }
}
