import FoundationEssentials

/// Turns one request line into a `Request`, or a `RequestError` that says exactly what is wrong.
public struct RequestDecoder: Sendable {
    public init() {}

    public func decode(_ line: some Collection<UInt8>) -> Result<Request, RequestError> {
        let bytes = Data(line)
        guard String(data: bytes, encoding: .utf8) != nil else {
            return .failure(RequestError(.invalidUTF8, "the request is not valid UTF-8"))
        }
        guard bytes.contains(where: { !Self.isJSONWhitespace($0) }) else {
            return .failure(RequestError(.emptyRequest, "empty request; send one JSON object per line, e.g. {\"cmd\":\"status\"}"))
        }
        let id = (try? JSONDecoder().decode(IDOnly.self, from: bytes))?.id
        do {
            return .success(try JSONDecoder().decode(Request.self, from: bytes))
        } catch var error as RequestError {
            error.id = id
            return .failure(error)
        } catch let DecodingError.keyNotFound(key, _) {
            return .failure(RequestError(.missingField, "missing field \"\(key.stringValue)\"", id: id))
        } catch let DecodingError.typeMismatch(_, context) where context.codingPath.isEmpty,
            let DecodingError.valueNotFound(_, context) where context.codingPath.isEmpty
        {
            return .failure(RequestError(.notAnObject, "a request is a JSON object, e.g. {\"cmd\":\"status\"}"))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            return .failure(RequestError(.invalidField, "field \"\(Self.path(context))\" has the wrong type", id: id))
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            return .failure(RequestError(.invalidField, "field \"\(Self.path(context))\" is invalid", id: id))
        } catch {
            return .failure(RequestError(.invalidJSON, "the request is not valid JSON"))
        }
    }

    /// Reads just the id, so that even a request with other faults gets its id echoed.
    private struct IDOnly: Decodable {
        var id: RequestID?
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }
}
