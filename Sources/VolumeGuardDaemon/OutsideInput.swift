import FoundationEssentials
import GuardProtocol
import GuardSettings
import NIOCore
import NIOEmbedded
import NIOHTTP1
import VolumeGuardCore

/// The daemon's parsers of what comes from outside, each as one call on bytes: the same decoders and
/// rules its listeners and its start run, for the fuzz targets (Sources/FuzzTargets), which feed them
/// what no well-behaved client sends.
package enum OutsideInput {
    /// A control-socket client's bytes: split into lines as a connection splits them
    /// (`RequestLineDecoder`, which refuses a line past the limit), each decoded as a request.
    package static func controlRequests(_ bytes: [UInt8]) -> [Result<Request, RequestError>] {
        var decoder = RequestLineDecoder()
        var buffer = ByteBuffer(bytes: bytes)
        var requests: [Result<Request, RequestError>] = []
        do {
            while let line = try decoder.decode(buffer: &buffer) {
                requests.append(RequestDecoder().decode(line.readableBytesView))
            }
            if let last = try decoder.decodeLast(buffer: &buffer, seenEOF: true) {
                requests.append(RequestDecoder().decode(last.readableBytesView))
            }
        } catch {
            // A line past the limit: the connection is answered with an error and closed.
        }
        return requests
    }

    /// An HTTP connection's bytes: read by NIOHTTP1's decoder with the listener's limits, and each request
    /// head decided by the listener's policy (`Host`, `Origin`, the route, `Last-Event-ID` and the query)
    /// for a listener at `address` allowing `origins`.
    package static func httpDecisions(_ bytes: [UInt8], origins: [WebOrigin], address: ListenAddress) -> Int {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: HTTPRequestPolicy.decoderLimits)
        guard (try? channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))) != nil else { return 0 }
        _ = try? channel.writeInbound(ByteBuffer(bytes: bytes))
        let policy = HTTPRequestPolicy(origins: origins)
        let hosts = ListenerHosts(address: address)
        var decided = 0
        while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
            guard case .head(let head) = part else { continue }
            _ = policy.decide(head, hosts: hosts)
            decided += 1
        }
        return decided
    }

    /// The record of original levels, as the daemon reads it at start (`OriginalsRecord.levels`).
    package static func originals(_ bytes: [UInt8]) -> [String: SinkLevel]? {
        try? OriginalsRecord.levels(in: Data(bytes))
    }
}
