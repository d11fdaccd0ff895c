import Foundation
import PackagePlugin

/// Writes the version in the file VERSION, at the root of the package, into the target it is applied to (GuardProtocol) as
/// Swift: `let versionFile = "0.1.0"`. VERSION is the one place the version is set: `--version`, the control socket's
/// `version` reply, the Debian package and its changelog all show it (README.md, "Releasing"). The command runs when
/// VERSION changes, and refuses one that is not a version (a digit first; then digits, letters and `.+~`, which Debian's
/// versions allow and Swift's string literals hold as they are).
@main
struct VersionFile: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let version = context.package.directoryURL.appending(path: "VERSION")
        let output = context.pluginWorkDirectoryURL.appending(path: "VersionFile.swift")
        let script = """
            version=$(cat "$1") || exit 1
            case $version in
                [0-9]*) ;;
                *) echo "$1: '$version' is not a version, which starts with a digit" >&2; exit 1 ;;
            esac
            case $version in
                *[!0-9A-Za-z.+~]*) echo "$1: '$version' is not a version, which has only digits, letters and .+~" >&2; exit 1 ;;
            esac
            printf '// Made from %s by Plugins/VersionFile.\\nlet versionFile = "%s"\\n' "$1" "$version" > "$2"
            """
        return [
            .buildCommand(
                displayName: "Reading the version from VERSION",
                executable: URL(filePath: "/bin/sh"),
                arguments: ["-c", script, "sh", version.path, output.path],
                inputFiles: [version],
                outputFiles: [output]
            )
        ]
    }
}
