import Glibc

/// The code and constants the process has mapped from files: its executable and the shared libraries.
public enum MappedCode {
    /// Lets go of the pages that starting up touched, so that only what the daemon runs from now on is
    /// resident. Linux maps a file 64 KiB or more at a time around each page touched, and starting runs
    /// much that never runs again: most of the 12 MB executable, and the initialisers of the libraries
    /// libpulse loads and never calls (libsndfile and its codecs, X11, libsystemd, libdbus; 2–3 MB).
    ///
    /// Every read-only mapping of the executable or a shared object that holds no page of this process's
    /// own (in memory or swapped out) is dropped (`MADV_DONTNEED`; a page this process wrote, such as
    /// relocated data, is never lost); what runs again faults back in from the page cache. The
    /// executable is also read at random from here on (`MADV_RANDOM`: no readahead) and its cached pages
    /// dropped, so that a fault maps its own page and not the 64 KiB around it; shared libraries stay
    /// cached for the other processes that use them. It blocks while a freshly written executable is
    /// written back: call it where blocking is allowed. Returns the mappings dropped.
    @discardableResult
    public static func shed() -> Int {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0, let smaps = fopen("/proc/self/smaps", "re") else { return 0 }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var mappings: [Mapping] = []
        var current: Int?
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, smaps) > 0, let line {
            let fields = String(cString: line).split(separator: " ", omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-").compactMap { UInt(String($0), radix: 16) } ?? []
            if range.count == 2, fields.count >= 5 {
                // A mapping's header: "start-end perms offset device inode [path]". Only the executable and
                // shared objects are candidates: the loader maps them and nothing unmaps them, unlike a data
                // file, a device or a memfd. A path with a space (or " (deleted)") is left alone.
                current = nil
                guard fields.count == 6 else { continue }
                let path = fields[5].dropLast()
                let isExecutable = path == executable
                guard isExecutable || path.hasSuffix(".so") || path.contains(".so.") else { continue }
                mappings.append(Mapping(start: range[0], end: range[1], writable: fields[1].contains("w"), isExecutable: isExecutable))
                current = mappings.count - 1
            } else if let current, fields.count >= 2, let kilobytes = Int(fields[1]) {
                // The mapping's pages that are this process's own copy (written, such as relocated data),
                // in memory or swapped out.
                switch fields[0] {
                case "Anonymous:": mappings[current].privateKilobytes.inMemory = kilobytes
                case "Swap:": mappings[current].privateKilobytes.swapped = kilobytes
                default: break
                }
            }
        }
        free(line)
        fclose(smaps)
        var dropped = 0
        for mapping in mappings {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            let size = Int(mapping.end - mapping.start)
            if mapping.isExecutable { madvise(start, size, MADV_RANDOM) }
            guard !mapping.writable, mapping.privateKilobytes == (inMemory: 0, swapped: 0) else { continue }
            if madvise(start, size, MADV_DONTNEED) == 0 { dropped += 1 }
        }
        let file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        if file >= 0 {
            // A freshly built executable may still be dirty in the page cache, and dirty pages stay.
            fdatasync(file)
            posix_fadvise(file, 0, 0, POSIX_FADV_DONTNEED)
            close(file)
        }
        return dropped
    }

    private struct Mapping {
        var start: UInt
        var end: UInt
        var writable: Bool
        var isExecutable: Bool
        /// Unknown (nil) until smaps lists them; a mapping with either unknown is kept.
        var privateKilobytes: (inMemory: Int?, swapped: Int?) = (nil, nil)
    }
}
