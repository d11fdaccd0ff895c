import DurableFiles
import SystemPackage

/// The broker's password, from the file `mqtt-password-file` names: its first line, without the line's
/// end. Read each time a connection is made, so a changed password needs no reload.
public enum PasswordFile {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The most a password file may hold.
    static let sizeLimit = 4096

    public static func read(_ path: String) throws(Failure) -> String {
        let read: Result<[UInt8], DurableFile.Unfit>?
        do {
            read = try DurableFile.read(path, limit: sizeLimit)
        } catch {
            throw Failure(description: "cannot read mqtt-password-file \(path): \(error.errno)")
        }
        let bytes: [UInt8]
        switch read {
        case nil: throw Failure(description: "cannot read mqtt-password-file \(path): \(Errno.noSuchFileOrDirectory)")
        case .failure(.notAFile): throw Failure(description: "mqtt-password-file \(path) is not a regular file")
        case .failure(.tooLarge): throw Failure(description: "mqtt-password-file \(path) is larger than a password file (\(sizeLimit) bytes)")
        case .success(let contents): bytes = contents
        }
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        let password = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
        guard !password.isEmpty else {
            throw Failure(
                description: "mqtt-password-file \(path) " + (bytes.isEmpty ? "is empty" : "has an empty first line") + ": its first line is the password")
        }
        guard !password.contains(0), let text = String(validating: password, as: UTF8.self) else {
            throw Failure(description: "mqtt-password-file \(path) holds a NUL byte or bytes that are not UTF-8")
        }
        return text
    }
}
