import CEvdev

/// One `struct input_event` as an event node delivers it: the kernel's time of the event, its type, code
/// and value. A key's events are type EV_KEY, its code the key (KEY_VOLUMEUP), value 1 down, 0 up and 2
/// repeat; a frame of events ends with EV_SYN's SYN_REPORT.
public struct InputEvent: Hashable, Sendable {
    /// The kernel's timestamp (CLOCK_REALTIME unless the reader asked for another clock).
    public var seconds: Int
    public var microseconds: Int
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(seconds: Int, microseconds: Int, type: UInt16, code: UInt16, value: Int32) {
        self.seconds = seconds
        self.microseconds = microseconds
        self.type = type
        self.code = code
        self.value = value
    }

    init(_ event: input_event) {
        self.init(
            seconds: Int(cevdev_event_seconds(event)), microseconds: Int(cevdev_event_microseconds(event)), type: event.type, code: event.code,
            value: event.value)
    }

    /// EV_SYN: the end of a frame, or news that frames were lost.
    public static let synchronization = UInt16(EV_SYN)
    /// EV_KEY: a key or button.
    public static let key = UInt16(EV_KEY)
    /// SYN_DROPPED, EV_SYN's code for lost events: the reader's buffer overflowed, and the keys' state
    /// is to be read again (`EvdevFile.keysDown`; `InputSource.dropped` says when).
    public static let dropped = UInt16(SYN_DROPPED)

    public var isKey: Bool { type == Self.key }
    public var isDropped: Bool { type == Self.synchronization && code == Self.dropped }
}
