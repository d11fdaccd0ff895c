/// What systemd-logind records of a user: whether the user has an active session on a seat now. The
/// `uaccess` tag gives a seat's devices to the user of the seat's active session, so a user with none (a
/// service started at boot with lingering, an SSH login) gets nothing from it.
public enum LogindUser {
    /// Where logind keeps its records.
    public static let directory = "/run/systemd"

    /// The path of logind's record of the user `uid` under `directory`.
    public static func recordPath(uid: UInt32, directory: String = directory) -> String {
        "\(directory)/users/\(uid)"
    }

    /// The seats on which the user `uid` has an active session now, from logind's record of the user,
    /// as sd_uid_get_seats(3) reads them; none when logind keeps no record of the user (no session and
    /// no lingering) or runs not at all.
    public static func activeSeats(uid: UInt32, directory: String = directory) -> [String] {
        Directory.contents(recordPath(uid: uid, directory: directory)).map(activeSeats(record:)) ?? []
    }

    /// The `ACTIVE_SEATS=` of a record: `KEY=value` lines, its value the seats' ids separated by spaces.
    static func activeSeats(record: String) -> [String] {
        let key = "ACTIVE_SEATS="
        guard let line = record.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return [] }
        return line.dropFirst(key.count).split(separator: " ").map(String.init)
    }
}
