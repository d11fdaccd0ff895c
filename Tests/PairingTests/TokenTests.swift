import Pairing
import Testing

@Suite struct TokenTests {
    @Test func aNewTokenIs256BitsInBase64URL() throws {
        let token = try Token.generate()
        #expect(token.text.count == 43, "32 bytes, 6 bits a character, no padding")
        #expect(Token(Substring(token.text)) == token, "it reads back as a request carries it")
        #expect(try Token.generate() != token, "two tokens differ")
    }

    @Test func theHashIsSHA256OfTheText() throws {
        // FIPS 180-2's example: SHA-256("abc").
        let hash = try #require(Token("abc")).hash
        #expect(hash.description == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(TokenHash(hex: hash.description) == hash)
    }

    @Test(arguments: ["", "a b", "a+b", "a/b", "abc=", String(repeating: "a", count: 65), "é"])
    func whatIsNoTokenIsRefused(_ text: String) {
        #expect(Token(Substring(text)) == nil)
    }

    @Test func hashesMatchOnlyTheirOwn() throws {
        let one = try #require(Token("one")).hash
        let two = try #require(Token("two")).hash
        #expect(one.matches(one))
        #expect(!one.matches(two))
        #expect(TokenHash(hex: String(repeating: "g", count: 64)) == nil)
        #expect(TokenHash(hex: "ab") == nil)
    }

    @Test func theTokenNeverPrintsItself() throws {
        let token = try Token.generate()
        #expect(!"\(token)".contains(token.text))
        #expect(!String(reflecting: token).contains(token.text))
    }
}
