import Foundation
import GuardProtocol
import PropertyBased
import Testing

/// The request decoder against generated input: whatever a client sends, it answers with a request or
/// with one of its own error codes, and never crashes. Run on every test run, in about a second.
@Suite("Reading generated request lines")
struct RequestDecoderFuzzTests {
    let decoder = RequestDecoder()

    /// The codes the decoder itself gives; the others come from the connection, not from one line.
    static let decoderCodes: Set<RequestError.Code> = [
        .emptyRequest, .invalidUTF8, .invalidJSON, .notAnObject, .missingField, .invalidField, .unknownCommand,
    ]

    /// A decoding is sound when it is a request that reads back the same once encoded, or an error with
    /// a decoder code and a message.
    func expectSound(_ line: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        switch decoder.decode(line) {
        case .success(let request):
            #expect(decoder.decode(WireFormat.line(request).dropLast()) == .success(request), sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(Self.decoderCodes.contains(error.code), "\(error.code)", sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
    }

    @Test("Arbitrary bytes")
    func arbitraryBytes() async {
        await propertyCheck(count: 3000, input: Gen.uint8().array(of: 0...200)) { bytes in
            expectSound(bytes)
        }
    }

    @Test("Arbitrary JSON: objects with the request's fields and others, holding values of every type")
    func arbitraryJSON() async {
        await propertyCheck(count: 3000, input: Self.json) { text in
            expectSound(Array(text.utf8))
        }
    }

    @Test("Every request reads back as itself")
    func roundTrip() async {
        await propertyCheck(count: 1000, input: Self.request) { request in
            #expect(decoder.decode(WireFormat.line(request).dropLast()) == .success(request))
        }
    }

    @Test("Valid requests with bytes flipped, dropped, inserted or cut off")
    func mutatedRequests() async {
        let mutation = zip(Gen.int(in: 0...3), Gen.int(in: 0...10_000), Gen.uint8()).array(of: 1...4)
        await propertyCheck(count: 3000, input: Self.request, mutation) { request, mutations in
            var bytes = Array(WireFormat.line(request).dropLast())
            for (kind, position, byte) in mutations where !bytes.isEmpty {
                let index = position % bytes.count
                switch kind {
                case 0: bytes[index] = byte
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(byte, at: index)
                default: bytes.removeSubrange(index...)
                }
            }
            expectSound(bytes)
        }
    }

    // MARK: - Generators

    /// Any Unicode scalar: surrogate code points are none.
    static let scalar = Gen.oneOf(Gen.unicodeScalar(in: "\u{0}"..."\u{D7FF}"), Gen.unicodeScalar(in: "\u{E000}"..."\u{10FFFF}"))

    static let request = zip(
        Gen<Request.Command>.case,
        Gen.oneOf(
            Gen.int64().map { RequestID.number($0) },
            scalar.array(of: 0...12).map { RequestID.text(String(String.UnicodeScalarView($0))) }
        ).optional,
        Gen.uint64().optional
    ).map { Request($0, id: $1, since: $2) }

    static let json = Generator<String, Shrink.None<String>> { rng in jsonObject(depth: 0, using: &rng) }
}

// Random JSON text, biased towards what a request looks like, so that every decoding path is taken.

private func jsonObject(depth: Int, using rng: inout some RandomNumberGenerator) -> String {
    let keys = ["cmd", "id", "since", "cmd", "id", "since", "x", "", "c\\u006dd"]
    let members = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
        "\"\(keys.randomElement(using: &rng)!)\":\(jsonValue(depth: depth + 1, using: &rng))"
    }
    return "{" + members.joined(separator: ",") + "}"
}

private func jsonValue(depth: Int, using rng: inout some RandomNumberGenerator) -> String {
    let commands = Request.Command.allCases.map(\.rawValue) + ["", "Status", "reboot"]
    switch Int.random(in: 0...(depth > 3 ? 6 : 8), using: &rng) {
    case 0: return "null"
    case 1: return Bool.random(using: &rng) ? "true" : "false"
    case 2: return "\"\(commands.randomElement(using: &rng)!)\""
    case 3: return String(Int64.random(in: .min ... .max, using: &rng))
    case 4: return String(UInt64.random(in: 0...100, using: &rng))
    case 5: return ["1.5", "-0", "1e30", "-1", "18446744073709551616", "0.0", "1E2"].randomElement(using: &rng)!
    case 6: return "\"\\u00e9\\ud83d\\ude00\\n\""
    case 7:
        let elements = (0..<Int.random(in: 0...3, using: &rng)).map { _ in jsonValue(depth: depth + 1, using: &rng) }
        return "[" + elements.joined(separator: ",") + "]"
    default: return jsonObject(depth: depth, using: &rng)
    }
}
