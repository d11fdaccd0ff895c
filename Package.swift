// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "volume-guard",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "volume-guard", targets: ["volume-guard"]),
        .library(name: "VolumeGuardCore", targets: ["VolumeGuardCore"]),
        .library(name: "GuardProtocol", targets: ["GuardProtocol"]),
        .library(name: "VolumeGuardClient", targets: ["VolumeGuardClient"]),
        // For the fuzzing package in Fuzz/, which builds its libFuzzer executable with sanitizers.
        .library(name: "FuzzTargets", targets: ["FuzzTargets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.12.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // Errno and FilePath.
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
    ],
    targets: [
        // libpulse, from the system (Debian: libpulse-dev, which scripts/setup installs). Its headers are in
        // /usr/include and the module map links it, so pkg-config is not asked: libpulse.pc's flags
        // (-D_REENTRANT, -pthread) are ones SwiftPM refuses, with a warning on every build.
        .systemLibrary(name: "CPulse"),
        // libmosquitto, from the system (Debian: libmosquitto-dev); the module map links it.
        .systemLibrary(name: "CMosquitto"),
        // OpenSSL's libcrypto, from the system (Debian: libssl-dev): SHA-256 for the paired clients' tokens.
        .systemLibrary(name: "CCrypto"),
        // The clients paired with the HTTP listener: tokens, their hashes, roles and the file that keeps them.
        .target(name: "Pairing", dependencies: ["CCrypto", "DurableFiles", "GuardProtocol", "GuardSettings"]),
        // The guard's decisions: pure values, no IO, no clock of its own. It speaks the wire's vocabulary.
        .target(name: "VolumeGuardCore", dependencies: ["GuardProtocol"]),
        // The MQTT broker link's decisions and documents (queue, back-off, Home Assistant discovery): pure values.
        .target(name: "BrokerCore", dependencies: ["VolumeGuardCore", "GuardProtocol"]),
        // libpulse's async API as Swift async functions and an event stream.
        .target(
            name: "PulseBridge",
            dependencies: ["CPulse", "VolumeGuardCore"]
        ),
        // libmosquitto as a connection on a thread of its own that tells its outcome as events.
        .target(name: "MQTTBridge", dependencies: ["CMosquitto", "GuardSettings"]),
        // The newline-JSON wire format shared by the daemon and its clients, and the vocabulary its lines use;
        // and the version, from the file VERSION (the plugin VersionFile).
        .target(name: "GuardProtocol", plugins: ["VersionFile"]),
        // Writes VERSION into GuardProtocol as Swift, on each build after VERSION changes.
        .plugin(name: "VersionFile", capability: .buildTool()),
        // A small async client of the control socket (the CLI and tests use it).
        .target(
            name: "VolumeGuardClient",
            dependencies: [
                "GuardProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Files written so that a crash or a power cut leaves the old contents or the new, whole: the record
        // of original levels, the udev rule, the config file learn writes.
        .target(name: "DurableFiles", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        // SO_PEERCRED's `struct ucred`, which does not import into Swift.
        .target(name: "CPeerCredentials"),
        // A child run as another user: fork, the user's groups and ids, exec (`learn` under sudo).
        .target(name: "CUserSpawn"),
        // The evdev ioctls, whose request numbers are macros that do not import into Swift.
        .target(name: "CEvdev"),
        // An action's command spawned in a session of its own: glibc's flags for it do not import into Swift.
        .target(name: "CSpawn"),
        // Every thread's stack 1 MB, set before main (no function to call): 8 MB stacks get 2 MB huge pages.
        .target(name: "CThreadStacks"),
        // Input devices: found in sysfs, opened, grabbed and read; the directory watch that says when
        // they come and go; the udev rule that lets the user read them. A thin shell over the kernel's
        // interfaces, with its parsing pure.
        .target(
            name: "InputDevices",
            dependencies: ["CEvdev", "VolumeGuardCore", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // The daemon: the actor that owns core, bridge and subscribers, the control socket, actions,
        // logging, reloads and what a service needs. No config parser: `run` hands it a way to reload.
        .target(
            name: "VolumeGuardDaemon",
            dependencies: [
                "BrokerCore",
                "CPeerCredentials",
                "CSpawn",
                "DurableFiles",
                "GuardSettings",
                "InputDevices",
                "MQTTBridge",
                "Pairing",
                "VolumeGuardCore",
                "GuardProtocol",
                "PulseBridge",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // The one release setting that must be a module's own (scripts/build-release holds the rest of
            // the build that ships). Swift 6.3.1, and Debian's 6.2.3 that builds arm64, fail this module in
            // any optimized build with "circular reference": stack promotion asks for the isolation of
            // PulseConnection's `isolated deinit`, another module's, while the optimizer runs
            // (-debug-cycles shows the cycle). The module builds without that pass. A four-line
            // reproduction is in docs/PERFORMANCE.md, "The build".
            swiftSettings: [.unsafeFlags(["-Xllvm", "-sil-disable-pass=stack-promotion"], .when(configuration: .release))]
        ),
        // The daemon's settings: the options each source gives, actions, the mode, the configuration
        // they make together, and what is wrong with a config file.
        .target(
            name: "GuardSettings",
            dependencies: [
                "DurableFiles",
                "GuardProtocol",
                "VolumeGuardCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The config file: TOML in, `Options` out, with errors that name the line and key.
        .target(
            name: "GuardConfig",
            dependencies: [
                "CUserSpawn",
                "GuardSettings",
                "VolumeGuardCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // The commands that talk to a running daemon, `config`, and the setup's (`learn`, `doctor`), which
        // also read the devices and ask the audio server themselves: no daemon in them.
        .target(
            name: "ClientCommands",
            dependencies: [
                "BrokerCore",
                "DurableFiles",
                "GuardConfig",
                "GuardProtocol",
                "GuardSettings",
                "InputDevices",
                "MQTTBridge",
                "Pairing",
                "PulseBridge",
                "VolumeGuardClient",
                "VolumeGuardCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // NIOThreadPool, where learn's poll(2) waits.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: [
                // As VolumeGuardDaemon's, for the same reason: `learn` and `doctor` hold a PulseConnection too.
                .unsafeFlags(["-Xllvm", "-sil-disable-pass=stack-promotion"], .when(configuration: .release)),
                // A member is found only in the modules a file imports itself: ArgumentParser's own `import
                // Foundation` would otherwise lend every file Foundation's String methods (`contains`, via
                // `range(of:)`), which the release build, linked without Foundation's own libraries (no ICU),
                // cannot link.
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
        // The command-line tool: the client commands, and `run`, the daemon.
        .executableTarget(
            name: "volume-guard",
            dependencies: [
                "CThreadStacks",
                "ClientCommands",
                "GuardProtocol",
                "GuardSettings",
                "VolumeGuardCore",
                "VolumeGuardDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The parsers of outside input as libFuzzer targets (`scripts/fuzz`), and their corpora and crashers
        // replayed by the tests. Not part of the executable.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "GuardConfig", "GuardSettings", "InputDevices", "Pairing", "VolumeGuardCore", "VolumeGuardDaemon",
                // EmbeddedChannel, in which the HTTP target runs NIOHTTP1's decoder as the listener does.
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets"]),
        .testTarget(
            name: "VolumeGuardCoreTests",
            dependencies: ["GuardProtocol", "VolumeGuardCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // The broker link's decisions and its JSON, exact strings.
        .testTarget(name: "BrokerCoreTests", dependencies: ["BrokerCore", "GuardProtocol"]),
        // Tokens, their hashes and the pairings file, on real files.
        .testTarget(name: "PairingTests", dependencies: ["GuardProtocol", "Pairing"]),
        // The order of a durable write's steps, and what a crash after each leaves, on real files.
        .testTarget(name: "DurableFilesTests", dependencies: ["DurableFiles", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "GuardProtocolTests",
            dependencies: ["GuardProtocol", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // The input devices' parsing against fake sysfs and /dev trees, and the texts for the user.
        .testTarget(
            name: "InputDevicesTests",
            dependencies: ["InputDevices", "VolumeGuardCore", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // The daemon's parts that need no audio server: config file, actions, log format, crash record.
        .testTarget(
            name: "VolumeGuardDaemonTests",
            dependencies: [
                "VolumeGuardDaemon", "GuardConfig", "GuardSettings", "VolumeGuardCore", "GuardProtocol",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // The setup commands' decisions (`learn`'s, `doctor`'s diagnosis fed facts), with no device, server or daemon.
        .testTarget(
            name: "ClientCommandsTests",
            dependencies: ["ClientCommands", "GuardConfig", "GuardProtocol", "GuardSettings", "InputDevices", "Pairing", "VolumeGuardCore"]
        ),
        // Running programs from tests (to their end, or in the background with their output collected), and a private
        // Mosquitto broker (scripts/mqtt-broker).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // The daemon and its commands as processes, against private audio servers and brokers.
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["VolumeGuardClient", "GuardProtocol", "PulseBridge", "VolumeGuardCore", "VolumeGuardDaemon", "GuardSettings", "TestSupport"]
        ),
        // The libmosquitto shell against a real Mosquitto broker and its clients (scripts/mqtt-broker).
        .testTarget(name: "MQTTBridgeTests", dependencies: ["MQTTBridge", "TestSupport"]),
    ]
)
