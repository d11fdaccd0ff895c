import CMosquitto
import Glibc

/// The connection's thread: its loop, and libmosquitto's callbacks, which run inside `mosquitto_loop` on it.
extension BrokerConnection {
    /// Starts the thread, which holds the connection until it ends.
    func startThread(_ request: ConnectRequest) {
        final class Start {
            let connection: BrokerConnection
            let request: ConnectRequest
            init(_ connection: BrokerConnection, _ request: ConnectRequest) {
                self.connection = connection
                self.request = request
            }
        }
        var thread = pthread_t()
        let start = Unmanaged.passRetained(Start(self, request)).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { start in
                let start = Unmanaged<Start>.fromOpaque(start!).takeRetainedValue()
                start.connection.run(start.request)
                return nil
            }, start)
        guard created == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            told(.failed(reason: "no thread for the connection: \(String(cString: strerror(created)))", tls: false))
            end()
            return
        }
        pthread_detach(thread)
    }

    /// Connects, turns the loop until the connection ends, then frees the handle and sends `.closed`.
    private func run(_ request: ConnectRequest) {
        // Its own name in ps, top and /proc/PID/task/*/comm; else it takes its creator's, libpulse's.
        pthread_setname_np(pthread_self(), "mqtt")
        // OpenSSL writes a TLS socket with write(2), not send(2) with MSG_NOSIGNAL: a broker gone mid-write
        // raises SIGPIPE in this thread, which ends a process that does not ignore it (the daemon does; a
        // test runner does not). Blocked here, it stays pending on this thread, and the write fails EPIPE.
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)
        var code = mosquitto_connect_async(handle, request.host, Int32(request.port), Int32(request.keepalive))
        while code == MOSQ_ERR_SUCCESS.rawValue, let wait = nextWait(keepalive: request.keepalive) {
            code = turn(waiting: wait)
        }
        if code != MOSQ_ERR_SUCCESS.rawValue {
            let reason = Self.text(of: code)
            told { shared in outcome(of: code, reason, in: &shared) }
        }
        end()
    }

    /// One turn of the loop, as `mosquitto_loop` takes one, but waiting in poll(2): its select(2) refuses a
    /// socket numbered 1024 or more (FD_SETSIZE), which a daemon that raised its open-file limit for many
    /// clients may be given. Waits up to `milliseconds` for the socket or `wake`, then lets libmosquitto
    /// read, write and do its timed work (the ping); libmosquitto's code.
    private func turn(waiting milliseconds: Int32) -> Int32 {
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        let writing = mosquitto_want_write(handle) ? Int16(POLLOUT) : 0
        var ready = [pollfd(fd: socket, events: Int16(POLLIN) | writing, revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        guard poll(&ready, 2, milliseconds) >= 0 else { return errno == EINTR ? MOSQ_ERR_SUCCESS.rawValue : MOSQ_ERR_ERRNO.rawValue }
        if ready[1].revents != 0 {
            var count: UInt64 = 0
            _ = read(wake, &count, MemoryLayout<UInt64>.size)
        }
        if ready[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            let code = mosquitto_loop_read(handle, 1)
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return code }
        }
        if mosquitto_socket(handle) >= 0, mosquitto_want_write(handle) {
            let code = mosquitto_loop_write(handle, 1)
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return code }
        }
        return mosquitto_loop_misc(handle)
    }

    /// How long, in milliseconds, the loop's next turn may wait for its socket; nil when the loop ends. A
    /// connection still waiting for its CONNACK past its deadline fails. Connected, a turn waits at most a
    /// quarter of the keepalive, so a ping is never late by more than that; a publish wakes the loop
    /// (libmosquitto's own socket pair), and so does `close`.
    private func nextWait(keepalive: Int) -> Int32? {
        told { shared in
            switch shared.state {
            case .connecting(let until, let deadline):
                let left = until - ContinuousClock.now
                guard left > .zero else {
                    shared.state = .ending
                    return (nil, .failed(reason: "no answer in \(deadline.components.seconds) s", tls: false))
                }
                return (Int32(min(left / .milliseconds(1), 60_000).rounded(.up)), nil)
            case .connected, .disconnecting: return (Int32(clamping: max(keepalive, 1) * 250), nil)
            case .made, .ending, .ended: return (nil, nil)
            }
        }
    }

    /// The event that the loop's ending with `code` tells, if none was told yet.
    private func outcome(of code: Int32, _ reason: String, in shared: inout Shared) -> Event? {
        switch shared.state {
        case .connecting:
            shared.state = .ending
            let tls = code == MOSQ_ERR_TLS.rawValue || shared.tlsReason != nil
            return .failed(reason: tls ? shared.tlsReason ?? reason : reason, tls: tls)
        case .connected:
            shared.state = .ending
            return .lost(reason: reason)
        case .made, .disconnecting, .ending, .ended: return nil
        }
    }

    /// Frees the handle and sends `.closed`.
    private func end() {
        shared.withLock { shared in
            shared.state = .ended
            mosquitto_destroy(handle)
            Glibc.close(wake)
        }
        handler(.closed)
    }

    /// Decides under the lock, then tells the event, if any, outside it (the handler may call back in).
    private func told<T>(_ decide: (inout Shared) -> (T, Event?)) -> T {
        let (value, event) = shared.withLock { decide(&$0) }
        if let event { handler(event) }
        return value
    }

    private func told(_ decide: (inout Shared) -> Event?) {
        told { shared in ((), decide(&shared)) }
    }

    private func told(_ event: Event) { handler(event) }

    /// The connection whose handle called back.
    private static func connection(_ userdata: UnsafeMutableRawPointer?) -> BrokerConnection {
        Unmanaged<BrokerConnection>.fromOpaque(userdata!).takeUnretainedValue()
    }

    func installCallbacks() {
        mosquitto_connect_callback_set(handle) { _, userdata, code in BrokerConnection.connection(userdata).connackReceived(code) }
        mosquitto_disconnect_callback_set(handle) { _, userdata, code in BrokerConnection.connection(userdata).disconnected(code) }
        mosquitto_publish_callback_set(handle) { _, userdata, mid in BrokerConnection.connection(userdata).told(.acknowledged(ticket: mid)) }
        mosquitto_message_callback_set(handle) { _, userdata, message in
            guard let message = message?.pointee else { return }
            let payload = UnsafeRawBufferPointer(start: message.payload, count: Int(message.payloadlen))
            BrokerConnection.connection(userdata).told(.received(topic: String(cString: message.topic), payload: Array(payload)))
        }
        mosquitto_log_callback_set(handle) { _, userdata, level, text in
            guard level == MOSQ_LOG_ERR, let text else { return }
            BrokerConnection.connection(userdata).logged(String(cString: text))
        }
    }

    private func connackReceived(_ code: Int32) {
        told { shared in
            guard case .connecting = shared.state else { return nil }
            if code == 0 {
                shared.state = .connected
                return .connected
            }
            shared.state = .ending
            return .refused(code: code, reason: String(cString: mosquitto_connack_string(code)))
        }
    }

    /// libmosquitto's word that the socket is closed: 0 after our DISCONNECT, else an error code.
    private func disconnected(_ code: Int32) {
        let reason = Self.text(of: code)
        told { shared in
            if case .disconnecting = shared.state {
                shared.state = .ending
                return nil
            }
            return code == 0 ? nil : outcome(of: code, reason, in: &shared)
        }
    }

    /// An error line of libmosquitto's: OpenSSL's (`OpenSSL Error[0]: error:0A000086:SSL routines::certificate
    /// verify failed`) gives the TLS reason, the text after its last colon.
    private func logged(_ line: String) {
        guard line.hasPrefix("OpenSSL Error"), let colon = line.lastIndex(of: ":") else { return }
        let reason = line[line.index(after: colon)...].drop { $0 == " " }
        shared.withLock { $0.tlsReason = String(reason) }
    }
}
