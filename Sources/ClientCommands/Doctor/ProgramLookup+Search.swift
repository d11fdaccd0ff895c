import Glibc

extension ProgramLookup {
    /// Finds `program` as execvp(3) and posix_spawnp do for an action: a name with a `/` is a path,
    /// and any other is looked for in each of `path`'s directories (nil: the C library's default).
    init(_ program: String, path: String?) {
        if program.contains("/") {
            self = Self.check(program) ?? .missing
            return
        }
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "." : String($0) }
        var found: ProgramLookup?
        for directory in directories {
            switch Self.check("\(directory)/\(program)") {
            case .executable(let candidate)?: self = .executable(path: candidate); return
            case let other?: found = found ?? other
            case nil: continue
            }
        }
        self = found ?? .missing
    }

    /// What is at `path`: a file this user may execute, one it may not, or nothing (nil).
    private static func check(_ path: String) -> ProgramLookup? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else { return nil }
        return access(path, X_OK) == 0 ? .executable(path: path) : .notExecutable(path: path)
    }
}
