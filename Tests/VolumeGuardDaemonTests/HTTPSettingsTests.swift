import GuardSettings
import Testing

@Suite("The HTTP listener's settings")
struct HTTPSettingsTests {
    @Test("An address is a port (on loopback), an IPv4 or bracketed IPv6 literal with a port, or localhost")
    func addresses() {
        #expect(ListenAddress("8370") == ListenAddress(host: "127.0.0.1", port: 8370))
        #expect(ListenAddress(":8370") == ListenAddress(host: "127.0.0.1", port: 8370))
        #expect(ListenAddress("localhost:8370") == ListenAddress(host: "127.0.0.1", port: 8370))
        #expect(ListenAddress("127.0.0.1:0") == ListenAddress(host: "127.0.0.1", port: 0))
        #expect(ListenAddress("[::1]:8370") == ListenAddress(host: "::1", port: 8370))
        #expect(ListenAddress("0.0.0.0:8370")?.isLoopback == false)
        #expect(ListenAddress("[::1]:8370")?.isLoopback == true)
        #expect(ListenAddress("[::1]:8370")?.description == "[::1]:8370")
        for wrong in ["", "http", "example.com:80", "127.0.0.1", "127.0.0.1:65536", "127.0.0.1:-1", "256.0.0.1:80", "::1:80", "[zz]:80", "1.2.3:80"] {
            #expect(ListenAddress(wrong) == nil, "\(wrong)")
        }
    }

    @Test("Origins compare as browsers send them: lower case, without a scheme's default port")
    func origins() {
        #expect(WebOrigin("HTTP://LocalHost:8000")?.description == "http://localhost:8000")
        #expect(WebOrigin("http://booth.example:80")?.description == "http://booth.example")
        #expect(WebOrigin("https://booth.example:443")?.description == "https://booth.example")
        #expect(WebOrigin("http://[::1]:8000")?.description == "http://[::1]:8000")
        for wrong in ["*", "null", "127.0.0.1:8000", "file:///booth.html", "http://", "http://a/", "http://a:8000/x", "http://u@a", "http://a:0", "ftp://a"] {
            #expect(WebOrigin(wrong) == nil, "\(wrong)")
        }
    }

    @Test("The listener is off unless configured; its origins are kept as browsers send them")
    func configuration() {
        #expect(DaemonConfiguration(Options(), environment: [:]).http == nil)
        let options = Options(http: "8370", httpOrigins: ["http://LOCALHOST:8000"])
        #expect(
            DaemonConfiguration(options, environment: [:]).http
                == HTTPSettings(
                    address: ListenAddress(host: "127.0.0.1", port: 8370), origins: [WebOrigin("http://localhost:8000")!]
                ))
    }
}
