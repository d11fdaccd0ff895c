import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Pairing

/// The HTTP listener's paired clients as the daemon holds them: the pairings read from their file, each
/// client's open event streams, and the `TokenThrottle`. Shared by every connection of the listener, the
/// control socket (`reload-pairings`) and the reloader (SIGHUP), which read the file again through it.
///
/// A client revoked, or paired again with a new token, has its streams closed as soon as the file that
/// says so is read.
final class PairedClients: Sendable {
    /// Event streams one client may hold open: 50 tablets sharing one token are served, and a token that
    /// leaked cannot take every connection the listener has.
    static let streamsPerClient = 64

    let file: PairingsFile
    private let logger: Logger
    private let started = ContinuousClock.now

    private struct State {
        var pairings = Pairings()
        var throttle = TokenThrottle()
        /// The open streams, by client name: the token hash each was opened with, and its queue.
        var streams: [String: [ObjectIdentifier: (hash: TokenHash, queue: ClientQueue)]] = [:]
    }

    private let state = NIOLockedValueBox(State())

    init(file: PairingsFile, logger: Logger) {
        self.file = file
        self.logger = logger
    }

    var pairings: Pairings { state.withLockedValue { $0.pairings } }

    /// Reads the file again (on NIO's thread pool: a file on a hung network home blocks only the read) and
    /// uses what it holds; returns how many clients are paired now. A file that cannot be read keeps the
    /// pairings in use, and the error is thrown (and logged).
    @discardableResult
    func reload() async throws -> Int {
        let file = file
        let loaded: Pairings
        do {
            loaded = try await NIOThreadPool.singleton.runIfActive { try file.load() }
        } catch {
            logger.error("the pairings cannot be read; keeping the ones in use", metadata: ["path": "\(file.path)", "error": "\(error)"])
            throw error
        }
        use(loaded)
        return loaded.clients.count
    }

    /// Uses `pairings` from now on, and closes the streams of clients it no longer has with their token.
    func use(_ pairings: Pairings) {
        let closing = state.withLockedValue { state in
            state.pairings = pairings
            var closing: [(name: String, queue: ClientQueue)] = []
            for (name, streams) in state.streams {
                let hash = pairings[name]?.tokenHash
                for stream in streams.values where stream.hash != hash { closing.append((name, stream.queue)) }
            }
            return closing
        }
        for (name, queue) in closing {
            logger.notice("closing an event stream: its client's token was revoked", metadata: ["client": "\(name)"])
            queue.finish()
        }
    }

    /// Whether a stream was counted.
    enum Opening: Equatable {
        case opened
        /// The client has as many streams open as it may.
        case full
        /// Its token was revoked since the request was decided.
        case revoked
    }

    /// Counts an event stream of `client` as open, unless it may not be.
    func open(_ queue: ClientQueue, for client: PairedClient) -> Opening {
        state.withLockedValue { state in
            guard state.pairings[client.name]?.tokenHash == client.tokenHash else { return .revoked }
            var streams = state.streams[client.name] ?? [:]
            guard streams.count < Self.streamsPerClient else { return .full }
            streams[ObjectIdentifier(queue)] = (client.tokenHash, queue)
            state.streams[client.name] = streams
            return .opened
        }
    }

    func closed(_ queue: ClientQueue, for client: PairedClient) {
        state.withLockedValue { state in
            state.streams[client.name]?[ObjectIdentifier(queue)] = nil
            if state.streams[client.name]?.isEmpty == true { state.streams[client.name] = nil }
        }
    }

    /// How long requests from `address` are still refused; nil when they are heard.
    func refusal(of address: String) -> Duration? {
        let now = ContinuousClock.now - started
        return state.withLockedValue { $0.throttle.refusal(of: address, at: now) }
    }

    /// A wrong token came from `address`: counted, and logged if it is the first from there.
    func failed(from address: String) {
        let now = ContinuousClock.now - started
        guard state.withLockedValue({ $0.throttle.failed(from: address, at: now) }) else { return }
        logger.warning(
            "a wrong token came from \(address); more from there are not logged, and \(TokenThrottle.limit) in a minute refuse it for a minute",
            metadata: ["address": "\(address)"])
    }
}
