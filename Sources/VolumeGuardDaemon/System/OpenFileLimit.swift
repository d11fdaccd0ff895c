import Glibc

/// The process's limit on open files. Every client of the control socket holds a descriptor, and the
/// usual soft limit (1024) would turn clients away long before the hard limit says it must.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard one; returns the limit now in force (nil if it cannot be read).
    public static func raiseToHard() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        guard limit.rlim_cur < limit.rlim_max else { return UInt64(limit.rlim_cur) }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        return UInt64(setrlimit(resource, &raised) == 0 ? raised.rlim_cur : limit.rlim_cur)
    }

    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
}
