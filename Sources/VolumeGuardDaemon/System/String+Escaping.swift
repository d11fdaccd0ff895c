extension String {
    /// Each scalar that is a key of `replacements` written as its value, scalar by scalar (unlike
    /// Character-based replacing, a combining mark after the scalar or `\r\n` does not hide it).
    func escapingScalars(_ replacements: [Unicode.Scalar: String]) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let replacement = replacements[scalar] {
                result += replacement
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
