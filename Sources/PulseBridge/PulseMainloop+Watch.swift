import CPulse

extension PulseMainloop {
    /// A file descriptor the mainloop polls, calling back while it is readable (or hung up, or in
    /// error: the callback's read says which). Cancelled by `cancel()`, which its owner must call
    /// before it closes the descriptor.
    public final class Watch: @unchecked Sendable {
        fileprivate var event: OpaquePointer?
        fileprivate let body: () -> Void
        private let api: UnsafeMutablePointer<pa_mainloop_api>

        fileprivate init(api: UnsafeMutablePointer<pa_mainloop_api>, body: @escaping () -> Void) {
            self.api = api
            self.body = body
        }

        /// Stops watching. Called on the loop's thread, from the callback too (libpulse frees the event
        /// once the callback returns).
        public func cancel() {
            guard let event else { return }
            api.pointee.io_free(event)
            self.event = nil
            Unmanaged.passUnretained(self).release()
        }
    }

    /// Calls `body` on the loop's thread whenever `descriptor` is readable, until the watch is cancelled.
    /// Called on the loop's thread. Input devices are watched so, on the thread the guard runs on: a
    /// key event reaches the guard with no hop between threads, as a server event does.
    public func watch(_ descriptor: Int32, _ body: @escaping () -> Void) -> Watch {
        let watch = Watch(api: api, body: body)
        let flags = pa_io_event_flags_t(PA_IO_EVENT_INPUT.rawValue | PA_IO_EVENT_HANGUP.rawValue | PA_IO_EVENT_ERROR.rawValue)
        watch.event = api.pointee.io_new(
            api, descriptor, flags,
            { _, _, _, _, watch in
                // The body may cancel its own watch, which drops the last reference to it.
                let watch = Unmanaged<Watch>.fromOpaque(watch!).takeUnretainedValue()
                withExtendedLifetime(watch) { watch.body() }
            }, Unmanaged.passRetained(watch).toOpaque())
        return watch
    }
}
