import Glibc

/// A socket file, told apart from whatever else may be at its path later: a daemon removes the socket it
/// bound and nothing that was put in its place while it ran.
struct SocketFile: Equatable {
    private let device: dev_t
    private let inode: ino_t

    /// The socket at `path`, without following a symbolic link; nil when there is none.
    init?(at path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        device = info.st_dev
        inode = info.st_ino
    }
}
