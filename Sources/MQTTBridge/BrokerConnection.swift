import CMosquitto
import Glibc
import Synchronization

/// One connection to an MQTT broker through libmosquitto, for one life: `connect` once, then `disconnect` or
/// `close`; a connection that failed or was lost is not reconnected (make a new one).
///
/// libmosquitto runs on a thread of the connection's own, not on the daemon's loops. The daemon's threads
/// are libpulse's mainloop and SwiftNIO's event loops; libmosquitto's name lookup (`getaddrinfo`) blocks,
/// and its loop (`mosquitto_loop`) waits in select(2) on its socket, so either would hold up a loop it ran
/// on. Here the thread calls `mosquitto_connect_async` (a non-blocking TCP connect; the TLS handshake and
/// the CONNECT then go on inside the loop) and turns `mosquitto_loop` until the connection ends. A turn
/// waits until the socket has something, the connect's deadline, or a quarter of the keepalive (so a ping
/// is late by at most that). `mosquitto_threaded_set` makes libmosquitto lock its own state, so `publish`
/// and `subscribe` may be called from any thread: they queue the packet and wake the loop through
/// libmosquitto's own socket pair (seen here: with 5 s turns, a publish was still acknowledged at once).
/// `close` wakes it by shutting the socket down.
///
/// Every event reaches the handler on that thread, `.closed` last. The handler may call any method,
/// `close` too: a close from inside it ends the loop when the callback returns.
public final class BrokerConnection: Sendable {
    let handler: @Sendable (Event) -> Void
    let shared: Mutex<Shared>
    /// The libmosquitto handle. Used by the connection's thread, and by other threads only while `shared`
    /// says the connection runs, holding its lock; freed once, under that lock, when it ends.
    nonisolated(unsafe) let handle: OpaquePointer
    /// An eventfd that wakes the loop's poll(2) when a packet is queued; written only under `shared`'s
    /// lock while the connection runs, and closed with the handle.
    let wake: Int32

    /// Where the connection is in its one life.
    enum State {
        /// Made; `connect` not called.
        case made
        /// The thread runs; no CONNACK yet. Past `until`, the connection fails.
        case connecting(until: ContinuousClock.Instant, deadline: Duration)
        case connected
        /// DISCONNECT is queued: the loop ends when libmosquitto has sent it.
        case disconnecting
        /// The loop ends at its next turn: `close` was called, or the outcome is told (refused, failed, lost).
        case ending
        /// The handle is freed; `.closed` is sent, or about to be.
        case ended
    }

    struct Shared {
        var state = State.made
        /// OpenSSL's reason for the last TLS error, from libmosquitto's log.
        var tlsReason: String?
    }

    private static let library: Void = { mosquitto_lib_init() }()

    /// Makes a connection, not yet connected, that tells `handler` what happens to it.
    public init(clientID: String, handler: @escaping @Sendable (Event) -> Void) {
        Self.library
        self.handler = handler
        self.shared = Mutex(Shared())
        // Clean session: the daemon resends what was not acknowledged itself, from its own queue.
        handle = mosquitto_new(clientID, true, nil)!
        wake = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        mosquitto_threaded_set(handle, true)
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        installCallbacks()
    }

    deinit {
        // The thread holds the connection while it runs, so only a connection never connected gets here
        // with its handle.
        shared.withLock { shared in
            if case .made = shared.state {
                mosquitto_destroy(handle)
                Glibc.close(wake)
            }
        }
    }

    /// Starts connecting and returns at once: the name lookup, TCP connect, TLS handshake and CONNACK happen
    /// on the connection's own thread, and their outcome arrives as an event. A second call does nothing.
    public func connect(_ request: ConnectRequest) {
        let problem: String? = shared.withLock { shared in
            guard case .made = shared.state else { return nil }
            if let problem = configure(request) {
                shared.state = .ended
                mosquitto_destroy(handle)
                Glibc.close(wake)
                return problem
            }
            shared.state = .connecting(until: .now + request.deadline, deadline: request.deadline)
            return nil
        }
        if let problem {
            handler(.failed(reason: problem, tls: request.tls != nil))
            handler(.closed)
            return
        }
        startThread(request)
    }

    /// Publishes `payload` on `topic` at QoS 1; the mid, which `.acknowledged` names when the broker has it.
    public func publish(topic: String, payload: [UInt8], retain: Bool) throws -> Int32 {
        try whileConnected { handle in
            var mid: Int32 = 0
            let code = payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
            }
            return (code, mid)
        }
    }

    /// Subscribes to `topics` at QoS 1; their messages arrive as `.received`.
    public func subscribe(_ topics: [String]) throws {
        for topic in topics {
            try whileConnected { handle in (mosquitto_subscribe(handle, nil, topic, 1), ()) }
        }
    }

    /// Sends DISCONNECT, so the broker drops the will, then ends as `close` does. Before `.connected`, the
    /// same as `close`.
    public func disconnect() {
        let connected = shared.withLock { shared in
            guard case .connected = shared.state else { return false }
            shared.state = .disconnecting
            mosquitto_disconnect(handle)
            wakeLoop()
            return true
        }
        if !connected { close() }
    }

    /// Ends the connection without a DISCONNECT (the broker publishes the will), ends its thread and frees
    /// the handle. Callable any number of times, from any thread, the handler's too; returns at once, and
    /// `.closed` follows from the connection's thread (at once from the caller's when never connected).
    public func close() {
        let never = shared.withLock { shared in
            switch shared.state {
            case .made:
                shared.state = .ended
                mosquitto_destroy(handle)
                Glibc.close(wake)
                return true
            case .connecting, .connected, .disconnecting:
                shared.state = .ending
                // Wakes the loop: its socket reads the end at once (no DISCONNECT: the broker sends the will).
                let socket = mosquitto_socket(handle)
                if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
                wakeLoop()
                return false
            case .ending, .ended:
                return false
            }
        }
        if never { handler(.closed) }
    }

    /// Runs `body` on the handle while the connection is connected, under the lock; throws libmosquitto's
    /// refusal.
    private func whileConnected<T>(_ body: (OpaquePointer) -> (code: Int32, value: T)) throws -> T {
        let (code, value): (Int32, T?) = shared.withLock { shared in
            guard case .connected = shared.state else { return (-1, nil) }
            let (code, value) = body(handle)
            wakeLoop()
            return (code, value)
        }
        guard let value, code == MOSQ_ERR_SUCCESS.rawValue else {
            throw BrokerConnectionError(code == -1 ? "not connected to the broker" : Self.text(of: code))
        }
        return value
    }

    /// Wakes the loop's poll, for a packet just queued or the end. Called holding `shared`'s lock, while
    /// the connection runs, so `wake` is open.
    private func wakeLoop() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
    }

    /// The options of `request` set on the handle; what libmosquitto refused, if it did.
    private func configure(_ request: ConnectRequest) -> String? {
        var codes: [Int32] = []
        if let username = request.username {
            codes.append(mosquitto_username_pw_set(handle, username, request.password))
        }
        if let will = request.will {
            codes.append(
                will.payload.withUnsafeBytes { bytes in
                    mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, 1, will.retain)
                })
        }
        if let tls = request.tls {
            codes.append(mosquitto_tls_set(handle, tls.caFile, tls.caFile == nil ? "/etc/ssl/certs" : nil, tls.certFile, tls.keyFile, nil))
        }
        return codes.first { $0 != MOSQ_ERR_SUCCESS.rawValue }.map(Self.text(of:))
    }

    /// libmosquitto's text for `code`, errno's when the code says the error is in errno.
    static func text(of code: Int32) -> String {
        code == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(code))
    }
}
