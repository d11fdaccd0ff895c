import Glibc
import SystemPackage

extension DurableFile {
    /// Why a file at a path is not one to read whole.
    public enum Unfit: Error, Equatable, Sendable {
        /// A directory, a FIFO, a device: anything but a regular file.
        case notAFile
        /// Larger than the reader takes: its size.
        case tooLarge(Int)
    }

    /// The bytes of the regular file at `path`, read whole, up to `limit`; `Unfit` when it is no file of
    /// that size, nil when there is none. Opened nonblocking and checked before it is read, so that a FIFO
    /// at the path cannot hang the reader; read until the end, so that a short read loses nothing.
    public static func read(_ path: String, limit: Int) throws(Failure) -> Result<[UInt8], Unfit>? {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .nonBlocking])
        } catch Errno.noSuchFileOrDirectory {
            return nil
        } catch {
            throw Failure(.read, path, error as? Errno ?? .ioError)
        }
        defer { try? file.close() }
        var info = stat()
        guard fstat(file.rawValue, &info) == 0 else { throw Failure(.read, path, Errno(rawValue: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notAFile) }
        guard info.st_size <= limit else { return .failure(.tooLarge(Int(info.st_size))) }
        // One past the limit: a file that grew since fstat is read as too large, not cut short.
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let read: Int
            do {
                read = try bytes.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
            } catch {
                throw Failure(.read, path, error as? Errno ?? .ioError)
            }
            if read == 0 { break }
            count += read
        }
        guard count <= limit else { return .failure(.tooLarge(count)) }
        return .success(Array(bytes[..<count]))
    }
}
