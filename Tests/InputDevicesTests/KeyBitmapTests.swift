import Testing

@testable import InputDevices

@Suite("Key bitmaps")
struct KeyBitmapTests {
    @Test("sysfs's capabilities/key: hex words, highest first, without leading zero words")
    func sysfsWords() {
        // An AB Shutter3's Consumer Control part: KEY_VOLUMEUP (115) alone, bit 51 of the second word.
        #expect(KeyBitmap.codes(sysfs: "8000000000000 0\n") == [115])
        #expect(KeyBitmap.codes(sysfs: "1 0") == [64])
        #expect(KeyBitmap.codes(sysfs: "1 0 0") == [128])
        #expect(KeyBitmap.codes(sysfs: "8000000000000000 0 0 0 0 0 0 0 0 0 0 0") == [0x2ff])
        // No keys at all.
        #expect(KeyBitmap.codes(sysfs: "0\n") == [])
    }

    @Test("A PC keyboard's bitmap has the keys it should, and not KEY_RESERVED")
    func keyboard() throws {
        let codes = try #require(KeyBitmap.codes(sysfs: "1000000000007 ff9f207ac14057ff febeffdfffefffff fffffffffffffffe\n"))
        #expect(!codes.contains(0))
        #expect(codes.isSuperset(of: [1, 28, 63, 113, 114, 115]))
        #expect(codes.contains(192 + 48))
        #expect(!codes.contains(192 + 49))
        #expect(Set(codes.filter { $0 < 64 }) == Set(1..<64))
    }

    @Test("Text that is not a bitmap is nil, not an empty set")
    func notABitmap() {
        #expect(KeyBitmap.codes(sysfs: "") == nil)
        #expect(KeyBitmap.codes(sysfs: "\n") == nil)
        #expect(KeyBitmap.codes(sysfs: "xyz") == nil)
        #expect(KeyBitmap.codes(sysfs: "1 0g") == nil)
        #expect(KeyBitmap.codes(sysfs: "10000000000000000 0") == nil)
        #expect(KeyBitmap.codes(sysfs: Array(repeating: "0", count: 1025).joined(separator: " ")) == nil)
    }

    @Test("The ioctls' words, lowest first")
    func ioctlWords() {
        #expect(KeyBitmap.codes(words: []) == [])
        #expect(KeyBitmap.codes(words: [0b10, 1 << 51]) == [1, 115])
        #expect(KeyBitmap.codes(words: [0, 0, 1 << 63]) == [191])
    }
}
