extension Options {
    /// The HTTP listener's keys.
    static let httpSettings: [Setting] = [
        .text(
            "http", \.http, "an address",
            help: """
                An HTTP listener for web pages and paired tablets: presses as Server-Sent Events at `/events`, with \
                `/status`, `/pause`, `/resume`, a paired client's `/press` and its page at `/`; off by default. A port \
                alone (`8370`) binds to loopback; an IP address and port (`127.0.0.1:8370`, `[::1]:8370`, \
                `0.0.0.0:8370`) binds there. On an address other than loopback every request needs a paired client's \
                token (`volume-guard pair`).
                """, needsRestart: true, check: ListenAddress.problem),
        .list(
            "http-origins", \.httpOrigins, "a list of origins",
            help: """
                The web pages that the HTTP listener serves, by origin: scheme, host and port, as the browser sends it \
                (`http://127.0.0.1:8000`). A request from any other page is refused, CORS headers go to exactly these, \
                and only these may pause and resume.
                """, needsRestart: true, check: problem(origins:)),
        .bool(
            "http-tokens", \.httpTokens,
            help: """
                Whether a request to an HTTP listener on loopback needs a paired client's token too, as it always does on \
                any other address (default false: on loopback, pages of `http-origins` and local programs are served \
                without one).
                """, needsRestart: true),
    ]
}
