import Testing

@testable import InputDevices

@Suite("A read of an event node, frame by frame")
struct EvdevFrameTests {
    static func key(_ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(seconds: 0, microseconds: 0, type: InputEvent.key, code: code, value: value)
    }

    static func report(_ value: Int32 = 0) -> InputEvent {
        InputEvent(seconds: 0, microseconds: 0, type: InputEvent.synchronization, code: InputEvent.report, value: value)
    }

    static let scan = InputEvent(seconds: 0, microseconds: 0, type: 4, code: 4, value: 0x0C00E9)
    static let dropped = InputEvent(seconds: 0, microseconds: 0, type: InputEvent.synchronization, code: InputEvent.dropped, value: 0)

    @Test("Each SYN_REPORT ends a frame of the device's, with its scan code and key in order")
    func deviceFrames() {
        let events = [Self.scan, Self.key(115, 1), Self.report(), Self.scan, Self.key(115, 0), Self.report()]
        #expect(
            EvdevFrame.split(events) == [
                .device([Self.scan, Self.key(115, 1), Self.report()]), .device([Self.scan, Self.key(115, 0), Self.report()]),
            ])
    }

    @Test("A frame whose SYN_REPORT has the value 1 is the kernel's: the keys it lets up, and nothing else of it")
    func kernelFrame() {
        let events = [Self.key(115, 1), Self.report(), Self.key(115, 0), Self.key(28, 0), Self.key(114, 2), Self.report(1)]
        #expect(EvdevFrame.split(events) == [.device([Self.key(115, 1), Self.report()]), .kernelReleased([115, 28])])
    }

    @Test("SYN_DROPPED stands alone where it came; events after the last report make a frame of their own")
    func droppedAndPartial() {
        let events = [Self.key(115, 1), Self.dropped, Self.report(), Self.key(28, 1)]
        #expect(EvdevFrame.split(events) == [.device([Self.key(115, 1)]), .dropped, .device([Self.report()]), .device([Self.key(28, 1)])])
        #expect(EvdevFrame.split([]) == [])
    }

    @Test("SYN_DROPPED in a read with the kernel's own release is kept: the keys must be read again")
    func droppedBeforeKernelFrame() {
        let events = [Self.dropped, Self.key(115, 0), Self.report(1)]
        #expect(EvdevFrame.split(events) == [.dropped, .kernelReleased([115])])
    }
}
