import CPulse

/// One request to the server and the callback that must hear its end exactly once.
///
/// When a context fails, libpulse cancels pending operations *without* calling their data callbacks, so a
/// request that completed only from its data callback would never complete. The end is therefore taken
/// from the operation's state callback (DONE or CANCELLED), which always fires; the data callback only
/// stores the value. Lives on the mainloop's thread only.
///
/// A request that libpulse refuses, or cancels, ends on the mainloop's next turn: never inside the call
/// that issued it, nor inside the `pa_context_disconnect` that cancelled it, so a caller is never re-entered
/// in the middle of its own work.
class PendingRequest: @unchecked Sendable {
    private var finished = false

    /// Calls the completion; the first call wins.
    final func finish() {
        guard !finished else { return }
        finished = true
        complete()
    }

    func complete() {}

    /// Hands the request's end to `operation`'s state callback and drops the caller's reference to the
    /// operation (the context keeps its own until the operation ends). A nil operation means libpulse
    /// refused the request outright (no connection).
    final func track(_ operation: OpaquePointer?) {
        guard let operation else { return finishLater() }
        pa_operation_set_state_callback(
            operation,
            { operation, userdata in
                guard let operation, let userdata else { return }
                let state = pa_operation_get_state(operation)
                guard state == PA_OPERATION_DONE || state == PA_OPERATION_CANCELLED else { return }
                let request = Unmanaged<PendingRequest>.fromOpaque(userdata).takeRetainedValue()
                if state == PA_OPERATION_DONE { request.finish() } else { request.finishLater() }
            }, Unmanaged.passRetained(self).toOpaque())
        pa_operation_unref(operation)
    }

    /// Finishes the request on the mainloop's next turn.
    private func finishLater() {
        PulseMainloop.shared.run(after: .zero) { self.finish() }
    }

    /// This request as the userdata of a libpulse data callback, valid while the operation lives.
    final var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> Self {
        Unmanaged<Self>.fromOpaque(userdata!).takeUnretainedValue()
    }
}

/// A request that yields a value; `nil` when it failed, was cancelled, or found nothing.
final class ValueRequest<Value: Sendable>: PendingRequest, @unchecked Sendable {
    var value: Value?
    private let completion: @Sendable (Value?) -> Void

    init(_ completion: @escaping @Sendable (Value?) -> Void) {
        self.completion = completion
    }

    override func complete() { completion(value) }
}
