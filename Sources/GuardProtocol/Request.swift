/// A client's request: one JSON object per line, e.g. `{"cmd":"subscribe","id":7}`.
public struct Request: Hashable, Sendable {
    public enum Command: String, Hashable, Sendable, CaseIterable {
        case status
        case subscribe
        case pause
        case resume
        case ping
        case version
        /// Read the pairings file again (`volume-guard pair` and `revoke` ask, having written it).
        case reloadPairings = "reload-pairings"
    }

    public var command: Command
    /// Echoed in the reply, so a client can match replies to requests.
    public var id: RequestID?
    /// For `subscribe`: the seq of the last press the client has, so that the later ones still in the
    /// daemon's history are replayed before live presses follow. Nil: live presses only.
    public var since: UInt64?
    /// For `subscribe`: whether gesture lines (holds, double presses) are wanted besides presses;
    /// nil means yes.
    public var gestures: Bool?
    /// For `subscribe`: whether state lines are wanted besides presses; nil means yes.
    public var states: Bool?
    /// For `pause`: whether the pause lasts only while this connection is open (or until its own `resume`
    /// with the field); for `resume`: whether it ends only this connection's pause. Nil means no.
    public var whileConnected: Bool?

    public init(
        _ command: Command, id: RequestID? = nil, since: UInt64? = nil, gestures: Bool? = nil, states: Bool? = nil, whileConnected: Bool? = nil
    ) {
        self.command = command
        self.id = id
        self.since = since
        self.gestures = gestures
        self.states = states
        self.whileConnected = whileConnected
    }
}

/// A request's `id`: any JSON string or integer the client chose.
public enum RequestID: Hashable, Sendable, Codable {
    case number(Int64)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if let number = try? value.decode(Int64.self) {
            self = .number(number)
        } else {
            self = .text(try value.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        switch self {
        case .number(let number): try value.encode(number)
        case .text(let text): try value.encode(text)
        }
    }
}

extension Request: Codable {
    private enum CodingKeys: String, CodingKey {
        case command = "cmd"
        case id
        case since
        case gestures
        case states
        case whileConnected = "while_connected"
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        let name = try fields.decode(String.self, forKey: .command)
        guard let command = Command(rawValue: name) else {
            throw RequestError(.unknownCommand, "unknown command \"\(name)\"; known: \(Command.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.command = command
        self.id = try fields.decodeIfPresent(RequestID.self, forKey: .id)
        do {
            self.since = try fields.decodeIfPresent(UInt64.self, forKey: .since)
        } catch {
            // Foundation reports a number out of UInt64's range (-1, 1.5, 1e30) as corrupt JSON, with no path.
            throw RequestError(.invalidField, "field \"since\" must be a press seq: a whole number, 0 or more")
        }
        self.gestures = try fields.decodeIfPresent(Bool.self, forKey: .gestures)
        self.states = try fields.decodeIfPresent(Bool.self, forKey: .states)
        self.whileConnected = try fields.decodeIfPresent(Bool.self, forKey: .whileConnected)
    }

    public func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encode(command.rawValue, forKey: .command)
        try fields.encodeIfPresent(id, forKey: .id)
        try fields.encodeIfPresent(since, forKey: .since)
        try fields.encodeIfPresent(gestures, forKey: .gestures)
        try fields.encodeIfPresent(states, forKey: .states)
        try fields.encodeIfPresent(whileConnected, forKey: .whileConnected)
    }
}
