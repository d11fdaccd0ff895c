import ArgumentParser
import Foundation

/// Where the control socket is: `--socket`, else `VOLUME_GUARD_SOCKET`, else
/// `$XDG_RUNTIME_DIR/volume-guard.sock`.
struct SocketOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The control socket.", valueName: "path"))
    var socket: String?

    var path: String {
        let environment = ProcessInfo.processInfo.environment
        if let socket { return socket }
        if let path = environment["VOLUME_GUARD_SOCKET"], !path.isEmpty { return path }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp/volume-guard-\(getuid())"
        return runtime + "/volume-guard.sock"
    }
}
