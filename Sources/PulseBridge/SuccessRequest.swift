import CPulse

/// A request whose reply is only success or failure (a set, a subscribe).
final class SuccessRequest: PendingRequest, @unchecked Sendable {
    private var succeeded = false
    private let completion: @Sendable (Bool) -> Void

    init(_ completion: @escaping @Sendable (Bool) -> Void) {
        self.completion = completion
    }

    override func complete() { completion(succeeded) }

    /// libpulse's `pa_context_success_cb_t` for requests whose userdata is a `SuccessRequest`.
    static let callback: pa_context_success_cb_t = { _, success, userdata in
        SuccessRequest.from(userdata).succeeded = success != 0
    }
}
