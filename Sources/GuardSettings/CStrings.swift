import Glibc

/// `strings` as a NULL-terminated C array, for the duration of `body`: an argv or envp for posix_spawn
/// (the config file's parser, an action's command) or exec.
package func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
