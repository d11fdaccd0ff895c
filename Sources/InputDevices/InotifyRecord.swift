/// One `struct inotify_event` as read from an inotify descriptor: the watch it concerns, what happened,
/// and the name of the entry it happened to (empty for the watched directory itself).
struct InotifyRecord: Hashable {
    var watch: Int32
    var mask: UInt32
    var name: String

    /// The records in `bytes`, as one read returns them: each a 16-byte header (wd, mask, cookie, len)
    /// and `len` bytes of name, NUL-padded. A truncated record at the end is left out (reads return
    /// whole records, so there is none unless the bytes are not from inotify).
    static func records(in bytes: UnsafeRawBufferPointer) -> [InotifyRecord] {
        let headerSize = 16
        var records: [InotifyRecord] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let start = offset + headerSize
            guard start + length <= bytes.count else { break }
            let name = bytes[start..<start + length].prefix { $0 != 0 }
            records.append(InotifyRecord(watch: watch, mask: mask, name: String(decoding: name, as: UTF8.self)))
            offset = start + length
        }
        return records
    }
}
