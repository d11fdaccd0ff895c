import CPulse
import VolumeGuardCore

/// Requests, each in two forms: with a completion that runs on the mainloop (in order with server events),
/// and as an async function. Every request completes exactly once, also when the connection fails.
extension PulseConnection {
    /// Reads the server's name, version and default sink.
    public func requestServerInfo(_ completion: @escaping @Sendable (ServerInfo?) -> Void) {
        let request = ValueRequest<ServerInfo>(completion)
        issue(request) { context in
            pa_context_get_server_info(
                context,
                { _, info, userdata in
                    guard let info = info?.pointee else { return }
                    ValueRequest<ServerInfo>.from(userdata).value = ServerInfo(
                        name: String(cString: info.server_name),
                        version: String(cString: info.server_version),
                        defaultSink: info.default_sink_name.map { String(cString: $0) }
                    )
                }, request.userdata)
        }
    }

    /// Reads the name of the server's default sink; nil when there is none (or the request failed).
    ///
    /// pipewire-pulse reports the placeholder `@DEFAULT_SINK@` until its session manager has chosen a
    /// default, and sends no server event once it has. Both servers resolve the placeholder in a sink
    /// lookup, so the sink it stands for is read and its real name given instead.
    public func requestDefaultSink(_ completion: @escaping @Sendable (String?) -> Void) {
        requestServerInfo { [weak self] info in
            guard let self, let name = info?.defaultSink, name == SinkSelection.defaultSinkName else {
                return completion(info?.defaultSink)
            }
            assumeIsolated { $0.requestSink(.name(name)) { completion($0?.name) } }
        }
    }

    /// Reads one sink; completes with nil when there is no such sink.
    public func requestSink(_ query: SinkQuery, _ completion: @escaping @Sendable (SinkState?) -> Void) {
        let request = ValueRequest<SinkState>(completion)
        let callback: pa_sink_info_cb_t = { _, info, eol, userdata in
            guard eol == 0, let info = info?.pointee else { return }
            ValueRequest<SinkState>.from(userdata).value = SinkState(info)
        }
        issue(request) { context in
            switch query {
            case .index(let index): pa_context_get_sink_info_by_index(context, index, callback, request.userdata)
            case .name(let name): pa_context_get_sink_info_by_name(context, name, callback, request.userdata)
            }
        }
    }

    /// Reads every sink; completes with nil when the request failed.
    public func requestSinks(_ completion: @escaping @Sendable ([SinkState]?) -> Void) {
        let request = ValueRequest<[SinkState]>(completion)
        issue(request) { context in
            pa_context_get_sink_info_list(
                context,
                { _, info, eol, userdata in
                    let request = ValueRequest<[SinkState]>.from(userdata)
                    if let info = info?.pointee, eol == 0 {
                        request.value = (request.value ?? []) + [SinkState(info)]
                    } else if eol > 0, request.value == nil {
                        request.value = []
                    }
                }, request.userdata)
        }
    }

    /// Sets every channel of a sink; completes with whether the server accepted it.
    public func setSinkVolume(index: UInt32, to volume: SinkVolume, _ completion: @escaping @Sendable (Bool) -> Void) {
        let request = SuccessRequest(completion)
        var levels = pa_cvolume(volume)
        issue(request) { context in
            pa_context_set_sink_volume_by_index(context, index, &levels, SuccessRequest.callback, request.userdata)
        }
    }

    /// Mutes or unmutes a sink; completes with whether the server accepted it.
    public func setSinkMute(index: UInt32, muted: Bool, _ completion: @escaping @Sendable (Bool) -> Void) {
        let request = SuccessRequest(completion)
        issue(request) { context in
            pa_context_set_sink_mute_by_index(context, index, muted ? 1 : 0, SuccessRequest.callback, request.userdata)
        }
    }

    // MARK: - Async forms

    public func serverInfo() async throws -> ServerInfo {
        try await withCheckedThrowingContinuation { done in
            requestServerInfo { info in
                if let info { done.resume(returning: info) } else { done.resume(throwing: PulseError.requestFailed("server info")) }
            }
        }
    }

    /// The sink, or nil when there is no such sink (or the connection failed).
    public func sink(_ query: SinkQuery) async -> SinkState? {
        await withCheckedContinuation { done in requestSink(query) { done.resume(returning: $0) } }
    }

    public func setSinkVolume(index: UInt32, to volume: SinkVolume) async throws {
        let ok = await withCheckedContinuation { done in setSinkVolume(index: index, to: volume) { done.resume(returning: $0) } }
        if !ok { throw PulseError.requestFailed("set volume of sink \(index)") }
    }

    public func setSinkMute(index: UInt32, muted: Bool) async throws {
        let ok = await withCheckedContinuation { done in setSinkMute(index: index, muted: muted) { done.resume(returning: $0) } }
        if !ok { throw PulseError.requestFailed("set mute of sink \(index)") }
    }
}
