import Glibc

/// The broker's password, from the file `mqtt-password-file` names: its first line, without the line's
/// end. Read each time a connection is made, so a changed password needs no reload.
public enum PasswordFile {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The most a password file may hold.
    static let sizeLimit = 4096

    public static func read(_ path: String) throws(Failure) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw Failure(description: "cannot read mqtt-password-file \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(description: "mqtt-password-file \(path) is not a regular file")
        }
        var bytes = [UInt8](repeating: 0, count: sizeLimit + 1)
        let count = Glibc.read(descriptor, &bytes, bytes.count)
        guard count >= 0 else { throw Failure(description: "cannot read mqtt-password-file \(path): \(String(cString: strerror(errno)))") }
        guard count <= sizeLimit else { throw Failure(description: "mqtt-password-file \(path) is larger than a password file (\(sizeLimit) bytes)") }
        let line = bytes[..<count].prefix { $0 != UInt8(ascii: "\n") }
        let password = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
        guard !password.isEmpty else { throw Failure(description: "mqtt-password-file \(path) is empty: its first line is the password") }
        guard !password.contains(0), let text = String(validating: password, as: UTF8.self) else {
            throw Failure(description: "mqtt-password-file \(path) holds a NUL byte or bytes that are not UTF-8")
        }
        return text
    }
}
