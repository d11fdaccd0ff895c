/// What happened to a device, for the log.
public enum InputReport: Hashable, Sendable {
    /// The device is grabbed: its keys are presses now.
    case grabbed(DeviceRef, match: DeviceMatch)
    /// The device has stayed refused past `InputSource.refusalGrace`.
    case refused(DeviceRef, error: String, fix: String)
    /// The device went away.
    case gone(DeviceRef)
}
