import GuardSettings
import NIOCore
import NIOEmbedded
import NIOHTTP1
import VolumeGuardDaemon

/// An HTTP connection's bytes as the listener reads them: NIOHTTP1's decoder with the listener's limits,
/// each request head it yields decided by the listener's policy.
enum HTTPReplay {
    static let origins = [WebOrigin("http://127.0.0.1:8000"), WebOrigin("https://booth.example")].compactMap { $0 }
    static let address = ListenAddress(host: "127.0.0.1", port: 8370)

    static func run(_ bytes: [UInt8]) {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: OutsideInput.httpDecoderLimits)
        guard (try? channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))) != nil else { return }
        _ = try? channel.writeInbound(ByteBuffer(bytes: bytes))
        while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
            if case .head(let head) = part { OutsideInput.httpDecision(head, origins: origins, address: address) }
        }
    }
}
