import SystemPackage

extension DurableFile {
    /// A step that failed: which, on which path, and the system's reason, read as "cannot rename
    /// /etc/udev/rules.d/70-volume-guard.rules: Permission denied".
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public enum Operation: String, Sendable {
            case create
            case read
            case write
            case sync
            case close
            case rename
            case syncDirectory = "sync the directory"
            case setAside = "set aside"
            case remove
        }

        public let operation: Operation
        public let path: String
        public let errno: Errno

        public init(_ operation: Operation, _ path: String, _ errno: Errno) {
            self.operation = operation
            self.path = path
            self.errno = errno
        }

        public var description: String { "cannot \(operation.rawValue) \(path): \(errno)" }
    }
}
