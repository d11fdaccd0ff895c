import Foundation
import TestSupport
import Testing

/// Waits until `sink` reads back exactly as `raw` (per channel), as a third client sees it.
func expectVolume(_ server: AudioServer, _ sink: String, _ raw: [UInt32], sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let matches = try await eventually { try server.volume(of: sink) == raw }
    let now = (try? server.volume(of: sink)) ?? []
    #expect(matches, "\(sink) reads \(now), expected \(raw)", sourceLocation: sourceLocation)
}

/// Waits a moment after the last expected press and checks that no further press came.
func expectNoMorePresses(_ subscriber: Subscriber, than count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
    try? await Task.sleep(for: .milliseconds(400))
    let presses = await subscriber.presses
    #expect(
        presses.count == count, "extra presses: \(presses.dropFirst(count).map { "\($0.direction?.rawValue ?? "-")x\($0.count)" })",
        sourceLocation: sourceLocation)
}
