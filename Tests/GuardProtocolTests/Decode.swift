import GuardProtocol

/// Reads one request line, as the daemon does.
func decode(_ line: String) -> Result<Request, RequestError> {
    RequestDecoder().decode(Array(line.utf8))
}
