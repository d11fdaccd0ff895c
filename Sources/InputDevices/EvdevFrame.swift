/// What one read of an event node holds, frame by frame: the kernel ends each frame with SYN_REPORT.
public enum EvdevFrame: Hashable, Sendable {
    /// A frame the device sent: its events in order. Events after the last SYN_REPORT of a read make a
    /// frame of their own: the rest of it comes with the next read.
    case device([InputEvent])
    /// A frame the kernel made itself (its SYN_REPORT's value is 1, `input_dev_release_keys`): the keys it
    /// lets up, as it does just before a device goes, or when the system resumes.
    case kernelReleased(Set<UInt16>)
    /// SYN_DROPPED: the reader's buffer overflowed and events were lost. It ends the frame it came in, and
    /// stands alone, so that no frame around it (the kernel's own among them) can hide it.
    case dropped

    /// `events`, as a read returned them, split into frames.
    public static func split(_ events: [InputEvent]) -> [EvdevFrame] {
        var frames: [EvdevFrame] = []
        var frame: [InputEvent] = []
        for event in events {
            if event.isDropped {
                if !frame.isEmpty { frames.append(.device(frame)) }
                frames.append(.dropped)
                frame = []
                continue
            }
            frame.append(event)
            guard event.isReport else { continue }
            if event.value == 1 {
                frames.append(.kernelReleased(Set(frame.filter { $0.isKey && $0.value == 0 }.map(\.code))))
            } else {
                frames.append(.device(frame))
            }
            frame = []
        }
        if !frame.isEmpty { frames.append(.device(frame)) }
        return frames
    }
}
