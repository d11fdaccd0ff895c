import CPulse

/// One connection to a PulseAudio or pipewire-pulse server, on a `PulseMainloop`.
///
/// An actor that runs on the mainloop's thread: its requests call libpulse directly, and libpulse's
/// callbacks (server events, request completions) run on that same thread, in the order libpulse
/// produced them. An actor on the same mainloop that hears both sees them in true order (on PulseAudio,
/// a write's acknowledgement before the change event it caused), and can issue its next request from
/// inside a callback without a hop (`assumeIsolated`, which the mainloop answers for its own thread).
/// No completion runs inside a call of the caller's: a refused request, and one that `close` cancels, end
/// on the mainloop's next turn.
///
/// A connection that failed stays failed (libpulse cannot reconnect a context): make a new one.
public actor PulseConnection {
    private let applicationName: String
    private let onEvent: @Sendable (PulseEvent) -> Void
    /// Where the connection is in its one life. The libpulse context is made by `connect` and lives
    /// until `close`.
    private enum State {
        /// Made; `connect` not called yet.
        case idle
        /// `connect` waits until the context is ready and subscribed.
        case connecting(OpaquePointer, waiter: CheckedContinuation<Void, any Error>)
        /// Connected and subscribed: a failure from now on is a lost connection, told as `.disconnected`.
        case ready(OpaquePointer)
        /// The context failed, connecting or after: requests on it fail, and it stays so until `close`.
        case failed(OpaquePointer)
        case closed
    }

    private var state = State.idle

    /// The libpulse context, from `connect` until `close`.
    private var context: OpaquePointer? {
        switch state {
        case .connecting(let context, _), .ready(let context), .failed(let context): context
        case .idle, .closed: nil
        }
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { PulseMainloop.shared.asUnownedSerialExecutor() }

    /// Makes a connection (not yet connected) that reports server events to `onEvent`, on the mainloop.
    public init(applicationName: String, onEvent: @escaping @Sendable (PulseEvent) -> Void) {
        self.applicationName = applicationName
        self.onEvent = onEvent
    }

    isolated deinit {
        close()
    }

    /// Connects to `server` (libpulse's address syntax, e.g. `unix:/run/user/1000/pulse/native`), or to the
    /// default server (`PULSE_SERVER`, then `$XDG_RUNTIME_DIR/pulse/native`) when nil, and subscribes to
    /// sink and server events. Never spawns a server.
    public func connect(to server: String? = nil) async throws {
        guard case .idle = state else { throw PulseError.connectionFailed("a connection connects once") }
        let proplist = pa_proplist_new()!
        pa_proplist_sets(proplist, PA_PROP_APPLICATION_NAME, applicationName)
        pa_proplist_sets(proplist, PA_PROP_APPLICATION_ID, "org.volume-guard")
        let context = pa_context_new_with_proplist(PulseMainloop.shared.api, applicationName, proplist)!
        pa_proplist_free(proplist)
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            state = .connecting(context, waiter: waiter)
            // Unretained: `close`, which `deinit` calls too, removes these callbacks before the context
            // can outlive the connection.
            let userdata = Unmanaged.passUnretained(self).toOpaque()
            pa_context_set_state_callback(
                context,
                { _, userdata in
                    Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue().assumeIsolated { $0.contextStateChanged() }
                }, userdata)
            pa_context_set_subscribe_callback(
                context,
                { _, event, index, userdata in
                    Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue().assumeIsolated { $0.received(event, index: index) }
                }, userdata)
            // A refused connect may already have failed the context, and so resumed the waiter, from
            // inside `pa_context_connect`: `failed` resumes only a waiter still waiting.
            if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
                failed(lastError)
            }
        }
    }

    /// Disconnects. Pending requests complete as failed, on the mainloop's next turn. Idempotent.
    public func close() {
        if case .connecting(_, let waiter) = state { waiter.resume(throwing: PulseError.connectionFailed("closed")) }
        let context = self.context
        state = .closed
        guard let context else { return }
        pa_context_set_state_callback(context, nil, nil)
        pa_context_set_subscribe_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
    }

    // MARK: - Running requests

    /// Issues one libpulse request through `body`, which returns its operation, and has `request` hear its
    /// end. A request refused outright (no connection) ends on the mainloop's next turn, as failed.
    func issue(_ request: PendingRequest, _ body: (OpaquePointer) -> OpaquePointer?) {
        request.track(context.flatMap(body))
    }

    /// The description of the context's last error.
    var lastError: String {
        context.map { String(cString: pa_strerror(pa_context_errno($0))) } ?? "closed"
    }

    // MARK: - Callbacks (on the mainloop)

    private func contextStateChanged() {
        guard let context else { return }
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            let mask = PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SERVER.rawValue
            let subscribed = SuccessRequest { [weak self] ok in
                self?.assumeIsolated { connection in
                    // Ready only once subscribed, so no change after `connect` returns goes unseen.
                    guard case .connecting(let context, let waiter) = connection.state else { return }
                    if ok {
                        connection.state = .ready(context)
                        waiter.resume()
                    } else {
                        connection.failed("subscribe refused: \(connection.lastError)")
                    }
                }
            }
            issue(subscribed) { pa_context_subscribe($0, pa_subscription_mask_t(mask), SuccessRequest.callback, subscribed.userdata) }
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            failed(lastError)
        default:
            break
        }
    }

    /// The context failed for `reason`: `connect`'s caller hears it if it still waits, else the owner as a
    /// lost connection, once.
    private func failed(_ reason: String) {
        switch state {
        case .connecting(let context, let waiter):
            state = .failed(context)
            waiter.resume(throwing: PulseError.connectionFailed(reason))
        case .ready(let context):
            state = .failed(context)
            onEvent(.disconnected(reason: reason))
        case .idle, .failed, .closed:
            break
        }
    }

    private func received(_ event: pa_subscription_event_type_t, index: UInt32) {
        let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
        let kind = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
        switch (facility, kind) {
        case (PA_SUBSCRIPTION_EVENT_SINK.rawValue, PA_SUBSCRIPTION_EVENT_NEW.rawValue):
            onEvent(.sinkAdded(index: index))
        case (PA_SUBSCRIPTION_EVENT_SINK.rawValue, PA_SUBSCRIPTION_EVENT_CHANGE.rawValue):
            onEvent(.sinkChanged(index: index))
        case (PA_SUBSCRIPTION_EVENT_SINK.rawValue, PA_SUBSCRIPTION_EVENT_REMOVE.rawValue):
            onEvent(.sinkRemoved(index: index))
        case (PA_SUBSCRIPTION_EVENT_SERVER.rawValue, _):
            onEvent(.serverChanged)
        default:
            break
        }
    }
}
