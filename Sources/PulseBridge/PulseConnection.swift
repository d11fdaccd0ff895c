import CPulse

/// One connection to a PulseAudio or pipewire-pulse server through libpulse's threaded mainloop.
///
/// libpulse runs its own thread; every call into it from elsewhere holds the mainloop lock, and every
/// callback runs on that thread with the lock already held (so callbacks never lock, and nothing here
/// holds the lock across an `await`). Server events and request completions are delivered in the order
/// libpulse produced them, on the mainloop thread: a caller that funnels both into one `AsyncStream`
/// sees them in true order (on PulseAudio, a write's acknowledgement before the change event it caused).
///
/// A connection that failed stays failed (libpulse cannot reconnect a context): make a new one.
public final class PulseConnection: @unchecked Sendable {
    private let mainloop: OpaquePointer
    let context: OpaquePointer
    private let onEvent: @Sendable (PulseEvent) -> Void
    // Guarded by the mainloop lock.
    private var connectWaiter: CheckedContinuation<Void, any Error>?
    private var ready = false
    private var closed = false

    /// Makes a connection (not yet connected) that reports server events to `onEvent`.
    public init(applicationName: String, onEvent: @escaping @Sendable (PulseEvent) -> Void) {
        self.onEvent = onEvent
        mainloop = pa_threaded_mainloop_new()!
        let proplist = pa_proplist_new()!
        pa_proplist_sets(proplist, PA_PROP_APPLICATION_NAME, applicationName)
        pa_proplist_sets(proplist, PA_PROP_APPLICATION_ID, "org.volume-guard")
        context = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(mainloop), applicationName, proplist)!
        pa_proplist_free(proplist)
    }

    deinit {
        close()
        pa_context_unref(context)
        pa_threaded_mainloop_free(mainloop)
    }

    /// Connects to `server` (libpulse's address syntax, e.g. `unix:/run/user/1000/pulse/native`), or to the
    /// default server (`PULSE_SERVER`, then `$XDG_RUNTIME_DIR/pulse/native`) when nil, and subscribes to
    /// sink and server events. Never spawns a server.
    public func connect(to server: String? = nil) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            pa_threaded_mainloop_lock(mainloop)
            defer { pa_threaded_mainloop_unlock(mainloop) }
            connectWaiter = waiter
            let userdata = Unmanaged.passUnretained(self).toOpaque()
            pa_context_set_state_callback(context, { context, userdata in
                Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue().contextStateChanged()
            }, userdata)
            pa_context_set_subscribe_callback(context, { _, event, index, userdata in
                Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue().received(event, index: index)
            }, userdata)
            // A refused connect may already have failed the context, and so resumed the waiter, from
            // inside `pa_context_connect`: `endConnecting` resumes only a waiter still waiting.
            if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
                endConnecting(.failure(PulseError.connectionFailed(lastError)))
            } else if pa_threaded_mainloop_start(mainloop) < 0 {
                endConnecting(.failure(PulseError.connectionFailed("cannot start the libpulse mainloop")))
            }
        }
    }

    /// Disconnects and stops the mainloop thread. Pending requests complete as failed. Idempotent.
    public func close() {
        pa_threaded_mainloop_lock(mainloop)
        let wasOpen = !closed
        closed = true
        if wasOpen {
            pa_context_set_state_callback(context, nil, nil)
            pa_context_set_subscribe_callback(context, nil, nil)
            pa_context_disconnect(context)
            endConnecting(.failure(PulseError.connectionFailed("closed")))
        }
        pa_threaded_mainloop_unlock(mainloop)
        if wasOpen { pa_threaded_mainloop_stop(mainloop) }
    }

    // MARK: - Running requests

    /// Runs `body` with the mainloop lock held; `body` issues one libpulse request and returns its
    /// operation, which `request` then tracks to its end.
    func issue(_ request: PendingRequest, _ body: (OpaquePointer) -> OpaquePointer?) {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        request.track(closed ? nil : body(context))
    }

    /// The description of the context's last error.
    var lastError: String { String(cString: pa_strerror(pa_context_errno(context))) }

    // MARK: - Callbacks (mainloop thread, lock held)

    private func contextStateChanged() {
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            let mask = PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SERVER.rawValue
            let subscribed = SuccessRequest { [weak self] ok in
                guard let self else { return }
                // Ready only once subscribed, so no change after `connect` returns goes unseen.
                ready = ok
                endConnecting(ok ? .success(()) : .failure(PulseError.connectionFailed("subscribe refused: \(lastError)")))
            }
            subscribed.track(pa_context_subscribe(context, pa_subscription_mask_t(mask), SuccessRequest.callback, subscribed.userdata))
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            let reason = lastError
            if connectWaiter != nil {
                endConnecting(.failure(PulseError.connectionFailed(reason)))
            } else if ready {
                ready = false
                onEvent(.disconnected(reason: reason))
            }
        default:
            break
        }
    }

    /// Resumes `connect`'s caller, once. Lock held.
    private func endConnecting(_ result: Result<Void, any Error>) {
        connectWaiter?.resume(with: result)
        connectWaiter = nil
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
