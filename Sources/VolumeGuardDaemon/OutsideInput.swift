import FoundationEssentials
import GuardProtocol
import GuardSettings
import NIOCore
import NIOHTTP1
import Pairing
import VolumeGuardCore

/// The daemon's parsers of what comes from outside, each as one call: the same decoders and rules its
/// listeners and its start run, for the fuzz targets (Sources/FuzzTargets), which feed them what no
/// well-behaved client sends.
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

    /// NIOHTTP1's decoder limits as the HTTP listener sets them, for a decoder of the fuzz target's own.
    package static let httpDecoderLimits = HTTPRequestPolicy.decoderLimits

    /// What the HTTP listener's policy decides for `head` (`Host`, `Origin`, the route, the token,
    /// `Last-Event-ID` and the query), at a listener at `address` allowing `origins`, whose one paired
    /// client has the token `fuzz-token`: as on loopback, and as where every request needs a token.
    package static func httpDecision(_ head: HTTPRequestHead, origins: [WebOrigin], address: ListenAddress) {
        let pairings = Pairings([PairedClient(name: "fuzz", role: .trigger, tokenHash: Token("fuzz-token")!.hash, paired: "")])
        for tokensRequired in [false, true] {
            _ = HTTPRequestPolicy(origins: origins, tokensRequired: tokensRequired).decide(head, hosts: ListenerHosts(address: address), pairings: pairings)
        }
    }

    /// The record of original levels, as the daemon reads it at start (`OriginalsRecord.levels`).
    package static func originals(_ bytes: [UInt8]) -> [String: SinkLevel]? {
        try? OriginalsRecord.levels(in: bytes)
    }
}
