import Glibc

extension DurableFile {
    /// The system calls that replace a file, in their order, as a value: the tests read the order here
    /// and stop a `Writer` after any step to see what a crash there leaves.
    public struct Plan: Equatable, Sendable {
        public enum Step: Equatable, Sendable {
            /// Creates a new file with a name no one can guess, beside `path` (in `directory`), opened
            /// with `flags`, its mode set to `permissions`; another name is tried when one exists.
            case create(directory: String, beside: String, flags: Int32, permissions: mode_t)
            /// Writes all of `bytes` to the new file.
            case write([UInt8])
            /// fsync(2) of the new file: its bytes are on disk before its name is.
            case sync
            /// Closes the new file.
            case close
            /// rename(2) of the new file over `path`: the one moment the file changes, in one step.
            case rename(over: String)
            /// fsync(2) of `directory`, which makes the rename last.
            case syncDirectory(String)
        }

        public let steps: [Step]

        /// The flags of the new file: it must not exist (not even as a symlink), and no child inherits it.
        public static let createFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC

        /// What `DurableFile.replace` does.
        public static func replace(_ path: String, with bytes: [UInt8], permissions: mode_t) -> Plan {
            let directory = DurableFile.directory(of: path)
            let name = String(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...])
            return Plan(steps: [
                .create(directory: directory, beside: name, flags: createFlags, permissions: permissions), .write(bytes), .sync, .close,
                .rename(over: path), .syncDirectory(directory),
            ])
        }
    }
}
