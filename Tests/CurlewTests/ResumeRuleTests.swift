@testable import Curlew
import Foundation
import HTTPTypes
import Testing

/// The pure rules behind resumed downloads: which validators may join ranges (RFC 9110 §8.8,
/// §13.1.5), which names are Curlew's partial files, and what of a URL resume data keeps.
@Suite("Resume rules")
struct ResumeRuleTests {
    private func fields(_ pairs: [(HTTPField.Name, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: name, value: value)) }
        return fields
    }

    @Test func aStrongETagIsTheValidatorAndAWeakOneIsNone() {
        #expect(ResumeValidator.of(fields([(.eTag, "\"v1\"")])) == "\"v1\"")
        #expect(ResumeValidator.of(fields([(.eTag, " \"v1\" ")])) == "\"v1\"")
        #expect(ResumeValidator.of(fields([(.eTag, "W/\"v1\"")])) == nil)
        #expect(ResumeValidator.of(fields([(.eTag, "v1")])) == nil, "an unquoted tag is not an entity tag")
        #expect(ResumeValidator.of(fields([(.eTag, "\"a\"b\"")])) == nil, "a quote inside is not etagc")
        // With an entity tag, even a weak one, the date is not used (§13.1.5).
        let dated = [(HTTPField.Name.lastModified, "Tue, 15 Nov 1994 08:12:31 GMT"), (.date, "Wed, 16 Nov 1994 08:12:31 GMT")]
        #expect(ResumeValidator.of(fields([(.eTag, "W/\"v1\"")] + dated)) == nil)
        #expect(ResumeValidator.of(fields(dated)) == "Tue, 15 Nov 1994 08:12:31 GMT")
    }

    /// A `Last-Modified` is strong only at least 60 seconds before the response's `Date`
    /// (§8.8.2.2), and not without a `Date`.
    @Test(arguments: [("08:13:31", true), ("08:13:30", false), ("08:12:31", false)])
    func aLastModifiedDateIsStrongAMinuteBeforeTheDate(date: String, isStrong: Bool) {
        let modified = "Tue, 15 Nov 1994 08:12:31 GMT"
        let response = fields([(.lastModified, modified), (.date, "Tue, 15 Nov 1994 \(date) GMT")])
        #expect((ResumeValidator.of(response) != nil) == isStrong)
        #expect(ResumeValidator.of(fields([(.lastModified, modified)])) == nil)
    }

    @Test func aRangeMatchesOnlyTheSameStrongValidator() {
        #expect(ResumeValidator.matches(fields([(.eTag, "\"v1\"")]), stored: "\"v1\""))
        #expect(!ResumeValidator.matches(fields([(.eTag, "\"v2\"")]), stored: "\"v1\""))
        #expect(!ResumeValidator.matches(fields([(.eTag, "W/\"v1\"")]), stored: "\"v1\""), "strong comparison")
        #expect(!ResumeValidator.matches(fields([(.eTag, "\"V1\"")]), stored: "\"v1\""), "character for character")
        #expect(!ResumeValidator.matches(fields([]), stored: "\"v1\""), "no validator, no match")
        let date = "Tue, 15 Nov 1994 08:12:31 GMT"
        #expect(ResumeValidator.matches(fields([(.lastModified, date)]), stored: date))
        #expect(ResumeValidator.matches(fields([(.lastModified, "Tuesday, 15-Nov-94 08:12:31 GMT")]), stored: date), "the same time")
        #expect(!ResumeValidator.matches(fields([(.lastModified, "Tue, 15 Nov 1994 08:12:32 GMT")]), stored: date))
        #expect(!ResumeValidator.matches(fields([(.eTag, "\"v1\"")]), stored: date))
    }

    @Test func a416ContradictsOnlyWithAnotherValidatorOfTheSameKind() {
        #expect(!ResumeValidator.contradicts(fields([]), stored: "\"v1\""))
        #expect(!ResumeValidator.contradicts(fields([(.eTag, "\"v1\"")]), stored: "\"v1\""))
        #expect(ResumeValidator.contradicts(fields([(.eTag, "\"v2\"")]), stored: "\"v1\""))
        #expect(!ResumeValidator.contradicts(fields([(.eTag, "\"v2\"")]), stored: "Tue, 15 Nov 1994 08:12:31 GMT"))
    }

    @Test func storedValidatorsAreUsableOnlyWhenTheyMayBeSentAsIfRange() {
        #expect(ResumeValidator.isUsable("\"v1\""))
        #expect(ResumeValidator.isUsable("Tue, 15 Nov 1994 08:12:31 GMT"))
        #expect(!ResumeValidator.isUsable("W/\"v1\""))
        #expect(!ResumeValidator.isUsable(""))
        #expect(!ResumeValidator.isUsable("\"v1\"\r\nX-Injected: 1"))
        #expect(!ResumeValidator.isUsable("Tue, 15 Nov 1994 08:12:31 GMT\r\nX: 1"))
        #expect(!ResumeValidator.isUsable("tomorrow"))
    }

    @Test func partialFileNamesAreDerivedFromTheDestination() {
        #expect(DownloadFile.destinationName(ofTemporaryFile: ".file.bin.curlew-aB3dE9") == "file.bin")
        #expect(DownloadFile.destinationName(ofTemporaryFile: ".x.curlew-y.curlew-000000") == "x.curlew-y")
        #expect(DownloadFile.isTemporaryFileName(".file.bin.curlew-aB3dE9", for: "file.bin"))
        #expect(!DownloadFile.isTemporaryFileName(".file.bin.curlew-aB3dE9", for: "other.bin"))
        for name in [
            "file.bin.curlew-aB3dE9", ".file.bin.curlew-aB3dE", ".file.bin.curlew-aB3dE9x", ".file.bin.curlew-aB3d_9",
            ".file.bin-curlew-aB3dE9", "..curlew-aB3dE9", ".curlew-aB3dE9", "precious.txt",
        ] {
            #expect(!DownloadFile.isTemporaryFileName(name), "\(name)")
        }
    }

    @Test func persistedURLsKeepNoUserInfoOrSecretQueryValue() throws {
        func persisted(_ text: String) throws -> String {
            Redaction.persistable(try #require(URL(string: text))).absoluteString
        }
        #expect(try persisted("https://ann:pw@example.com/a?x=1") == "https://example.com/a?x=1")
        #expect(try persisted("https://ann@example.com/a") == "https://example.com/a")
        #expect(try persisted("https://example.com/a?x=1&access_token=t&y=2") == "https://example.com/a?x=1&y=2")
        #expect(try persisted("https://example.com/a?access%5Ftoken=t&client_secret=s") == "https://example.com/a")
        #expect(try persisted("https://example.com/a?x=%2F&=&b#frag") == "https://example.com/a?x=%2F&=&b#frag")
        #expect(try persisted("https://example.com/presigned?X-Amz-Signature=abc") == "https://example.com/presigned?X-Amz-Signature=abc")
    }
}
