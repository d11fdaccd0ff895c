import FoundationEssentials
import GuardProtocol
import NIOCore
import VolumeGuardCore

/// The press pipeline's end, the same for every source: lines to the subscribers (presses kept for
/// replays), presses to the actions.
extension GuardService {
    /// Performs what the `PressPipeline` made of a source's press or release.
    func pass(_ made: [PressPipeline.Action]) {
        turn { made.forEach(perform) }
    }

    private func perform(_ action: PressPipeline.Action) {
        switch action {
        case .publish(let press):
            logger.debug(
                "press",
                metadata: ["seq": "\(press.seq)", "press": "\(press.direction?.rawValue ?? press.key.map(KeyNames.name) ?? "")", "count": "\(press.count)"])
            noteCutLoose(hub.publish(seq: press.seq, ByteBuffer(line: PressMessage(press, time: timestamp))))
            actions.run(for: press)
        case .release(let release):
            logger.debug("release", metadata: ["seq": "\(release.seq)", "cause": "\(release.cause.rawValue)"])
            noteCutLoose(hub.publishRelease(seq: release.seq, ByteBuffer(line: ReleaseMessage(release, time: timestamp))))
        case .gesture(let gesture):
            logger.debug("gesture", metadata: ["gesture": "\(gesture.kind.rawValue)", "seq": "\(gesture.seq)"])
            noteCutLoose(hub.publishGesture(ByteBuffer(line: GestureMessage(gesture, time: timestamp))))
        case .wakeUp(let delay):
            wake(.pipeline, after: delay)
        }
    }

    private var timestamp: String { WireFormat.timestamp(Date()) }

    /// Subscribers that stopped reading were dropped.
    func noteCutLoose(_ count: Int) {
        for _ in 0..<count { logger.notice("subscriber cut loose: it stopped reading") }
    }
}
