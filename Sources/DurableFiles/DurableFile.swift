import Glibc
import SystemPackage

/// Writing a file so that a crash or a power cut at any moment leaves either its old contents or its new
/// ones, whole.
///
/// Writing over a file in place can leave it half written, and ext4's delayed allocation can leave a file
/// written just before a power cut full of zeros. So a file is written beside itself, flushed, and renamed
/// over the old one, whose name then moves in one step; the directory is flushed so that the rename
/// survives too. The temporary file is created with `O_EXCL|O_NOFOLLOW`: a symlink or a file planted at its
/// name is never followed nor written, whoever runs the writer (root, for the udev rule).
public enum DurableFile {
    /// Replaces the file at `path` whole: a temporary file in the same directory opened with
    /// O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC (mode `permissions`), written, fsync'd, renamed over `path`, the
    /// directory fsync'd.
    ///
    /// The mode is `permissions` exactly, whatever the umask. A symlink at `path` is replaced, not followed.
    /// On a failure the temporary file is removed and `path` is as it was (unless only the last step, the
    /// directory's flush, failed: then the new file is in place but may not survive a power cut).
    public static func replace(_ path: String, with bytes: [UInt8], permissions: mode_t) throws(DurableFile.Failure) {
        var writer = Writer()
        do throws(Failure) {
            for step in Plan.replace(path, with: bytes, permissions: permissions).steps { try writer.perform(step) }
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// Renames a file that must not be trusted (`path.damaged`, or `path.damaged.1`, `.2`... when that
    /// exists) so that nothing of it is lost and the next write starts afresh; the directory is flushed.
    /// Returns the name it now has.
    @discardableResult
    public static func setAside(_ path: String) throws(DurableFile.Failure) -> String {
        let base = path + ".damaged"
        for number in 0..<1000 {
            let target = number == 0 ? base : base + ".\(number)"
            // A hard link fails when its name exists, where rename would replace what is there.
            guard link(path, target) == 0 else {
                if errno == EEXIST { continue }
                throw Failure(.setAside, path, Errno(rawValue: errno))
            }
            guard unlink(path) == 0 else { throw Failure(.remove, path, Errno(rawValue: errno)) }
            try syncDirectory(directory(of: path))
            return target
        }
        throw Failure(.setAside, path, .fileExists)
    }

    /// The directory that holds `path`: what is before its last `/`, or `.`.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// fsync(2) of `directory`: what makes a rename in it last.
    static func syncDirectory(_ directory: String) throws(Failure) {
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw Failure(.syncDirectory, directory, Errno(rawValue: errno)) }
        defer { close(folder) }
        guard retryingInterrupts({ fsync(folder) }) == 0 else { throw Failure(.syncDirectory, directory, Errno(rawValue: errno)) }
    }

    /// `call`'s result, called again while it fails with EINTR.
    static func retryingInterrupts(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
