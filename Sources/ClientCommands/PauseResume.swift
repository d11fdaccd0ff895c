import ArgumentParser
import GuardProtocol
import VolumeGuardClient

public struct Pause: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(abstract: "Let the volume keys act normally until `resume`.")

    @OptionGroup var socket: SocketOptions

    public func run() async throws {
        try await send(.pause, to: socket.path)
    }
}

public struct Resume: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(abstract: "Guard again, holding the current volume.")

    @OptionGroup var socket: SocketOptions

    public func run() async throws {
        try await send(.resume, to: socket.path)
    }
}

private func send(_ command: Request.Command, to path: String) async throws {
    try await talkToDaemon(at: path) { client in
        if case .error(let error) = try await client.request(Request(command)) { try fail(with: error) }
    }
}
