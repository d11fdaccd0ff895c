import Glibc
import SystemPackage

extension DurableFile {
    /// Performs a `Plan`'s steps, one call each, keeping the new file between them.
    ///
    /// It decides nothing: the order is the plan's. A writer dropped after any step is a process killed
    /// there, which is how the tests find what each step leaves at the path.
    public struct Writer {
        /// Where the new file is.
        enum State {
            case none
            case open(FileDescriptor, temporary: String)
            case closed(temporary: String)
            case renamed
        }

        private(set) var state = State.none

        public init() {}

        /// How many names a `create` tries before it gives up: each is 64 random bits, so a second try
        /// means a name was planted or left by a crash, and a thousandth means something is wrong.
        static let attempts = 1000

        public mutating func perform(_ step: Plan.Step) throws(Failure) {
            switch (step, state) {
            case (.create(let directory, let name, let flags, let permissions), .none):
                state = try Self.create(in: directory, beside: name, flags: flags, permissions: permissions)
            case (.write(let bytes), .open(let file, let temporary)):
                do {
                    _ = try file.writeAll(bytes)
                } catch {
                    throw Failure(.write, temporary, error as? Errno ?? .ioError)
                }
            case (.sync, .open(let file, let temporary)):
                guard DurableFile.retryingInterrupts({ fsync(file.rawValue) }) == 0 else { throw Failure(.sync, temporary, Errno(rawValue: errno)) }
            case (.close, .open(let file, let temporary)):
                state = .closed(temporary: temporary)
                do {
                    try file.close()
                } catch {
                    throw Failure(.close, temporary, error as? Errno ?? .ioError)
                }
            case (.rename(let path), .closed(let temporary)):
                guard Glibc.rename(temporary, path) == 0 else { throw Failure(.rename, path, Errno(rawValue: errno)) }
                state = .renamed
            case (.syncDirectory(let directory), .renamed):
                try DurableFile.syncDirectory(directory)
            default:
                preconditionFailure("step \(step) out of a plan's order")
            }
        }

        /// Removes the new file after a failed step, so that a failure leaves nothing beside the path.
        public mutating func abandon() {
            switch state {
            case .open(let file, let temporary):
                try? file.close()
                unlink(temporary)
            case .closed(let temporary):
                unlink(temporary)
            case .none, .renamed:
                break
            }
            state = .none
        }

        /// A new file beside `name` in `directory`, `.NAME.` and 16 random hex digits: hidden, and ending
        /// in no suffix that a reader of the directory takes (udev reads only `*.rules`).
        private static func create(in directory: String, beside name: String, flags: Int32, permissions: mode_t) throws(Failure) -> State {
            for _ in 0..<attempts {
                let temporary = directory + "/." + name + "." + String(UInt64.random(in: .min ... .max), radix: 16)
                let descriptor = DurableFile.retryingInterrupts { open(temporary, flags, permissions) }
                if descriptor < 0 && errno == EEXIST { continue }
                guard descriptor >= 0 else { throw Failure(.create, temporary, Errno(rawValue: errno)) }
                // The umask narrows open's mode; the file's mode is the one asked for.
                guard fchmod(descriptor, permissions) == 0 else {
                    let code = Errno(rawValue: errno)
                    Glibc.close(descriptor)
                    unlink(temporary)
                    throw Failure(.create, temporary, code)
                }
                return .open(FileDescriptor(rawValue: descriptor), temporary: temporary)
            }
            throw Failure(.create, directory + "/." + name + ".*", .fileExists)
        }
    }
}
