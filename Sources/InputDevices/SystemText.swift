/// The parsers of what the system writes about input devices, each given text it did not write, for the
/// fuzz targets (Sources/FuzzTargets): sysfs's ids and key bitmaps, the event directories' names, logind's
/// record of a user, and udev's links.
package enum SystemText {
    /// `bytes` as fields separated by NUL, each read by every parser.
    package static func parseAll(_ bytes: [UInt8]) {
        for field in bytes.split(separator: 0, omittingEmptySubsequences: false) {
            let text = String(decoding: field, as: UTF8.self)
            _ = KeyBitmap.codes(sysfs: text)
            _ = InputDirectory.hexID(text)
            _ = InputDirectory.eventNumber(text)
            _ = LogindUser.activeSeats(record: text)
            _ = StableLinks.resolve(text, in: "/dev/input/by-id")
        }
    }
}
