import Glibc

/// The daemon's own executable, as mapped into memory.
public enum ExecutableImage {
    /// Lets go of the executable's pages that starting up touched, so that only the code the daemon runs
    /// from now on is resident. Linux maps an executable 64 KiB or more at a time around each page
    /// touched, from the page cache; of the 12 MB of code, start-up touches scattered parts, steady state
    /// about 1 MB. So: read at random from here on (`MADV_RANDOM`: a fault maps its page, no readahead
    /// around it), drop the clean mappings (`MADV_DONTNEED` on those without a private page, so nothing
    /// written, such as relocated data, is ever lost), and drop the file's cached pages no process maps.
    /// What runs again faults back in, a page at a time. It blocks while a freshly written executable is
    /// written back: call it where blocking is allowed. Returns the mappings dropped.
    @discardableResult
    public static func shed() -> Int {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0, let smaps = fopen("/proc/self/smaps", "r") else { return 0 }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var mappings: [(start: UInt, end: UInt, writable: Bool, privatePages: Int)] = []
        var current: Int?
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, smaps) > 0, let line {
            let fields = String(cString: line).split(separator: " ", omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-").compactMap { UInt(String($0), radix: 16) } ?? []
            if range.count == 2, fields.count >= 5 {
                // A mapping's header: "start-end perms offset device inode [path]".
                current = nil
                guard fields.count == 6, fields[5].dropLast() == path else { continue }
                mappings.append((range[0], range[1], fields[1].contains("w"), 0))
                current = mappings.count - 1
            } else if let current, fields.first == "Anonymous:", fields.count >= 2, let kilobytes = Int(fields[1]) {
                // Its pages that are this process's own copy (written, such as relocated data).
                mappings[current].privatePages = kilobytes
            }
        }
        free(line)
        fclose(smaps)
        var dropped = 0
        for mapping in mappings {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            let size = Int(mapping.end - mapping.start)
            madvise(start, size, MADV_RANDOM)
            guard !mapping.writable, mapping.privatePages == 0 else { continue }
            if madvise(start, size, MADV_DONTNEED) == 0 { dropped += 1 }
        }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        if file >= 0 {
            // A freshly built executable may still be dirty in the page cache, and dirty pages stay.
            fdatasync(file)
            posix_fadvise(file, 0, 0, POSIX_FADV_DONTNEED)
            close(file)
        }
        return dropped
    }
}
