// swift-tools-version:6.1
// The libFuzzer executable for volume-guard's parsers of outside input, kept out of the main package:
// it is built only with `-sanitize=fuzzer,address`, which `scripts/fuzz` passes. The targets themselves
// are the main package's FuzzTargets, which the tests replay the corpus and crashers through.
import PackageDescription

let package = Package(
    name: "volume-guard-fuzz",
    dependencies: [.package(name: "volume-guard", path: "..")],
    targets: [
        .target(name: "CLibFuzzer"),
        .executableTarget(
            name: "volume-guard-fuzz", dependencies: ["CLibFuzzer", .product(name: "FuzzTargets", package: "volume-guard")]),
    ]
)
