import Foundation
import Testing

@testable import Delivery
@testable import Sinks

/// The webhook sink's pure parts: signature, Retry-After, backoff. (Delivery itself is tested against a real HTTP
/// scheduler in ServerTests.WebhookDeliveryTests.)
@Suite struct WebhookSinkTests {
    @Test func signatureIsHMACSHA256OfTheBody() {
        // RFC 4231 test case 2.
        let body = Array("what do ya want for nothing?".utf8)
        #expect(WebhookSink.signature(body, secret: Array("Jefe".utf8))
            == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func retryAfterTakesSecondsOrAnHTTPDate() throws {
        #expect(WebhookSink.retryAfter("3") == .seconds(3))
        #expect(WebhookSink.retryAfter(" 0 ") == .seconds(0))
        #expect(WebhookSink.retryAfter("soon") == nil)
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = f.string(from: Date().addingTimeInterval(30))
        let d = try #require(WebhookSink.retryAfter(date))
        #expect(d > .seconds(25) && d <= .seconds(30))
        #expect(WebhookSink.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT") == .zero)
    }

    @Test func backoffGrowsWithJitterUpToItsMaximum() {
        let p = RetryPolicy(initial: .milliseconds(100), maximum: .seconds(1), maximumRetryAfter: .seconds(5))
        for _ in 0..<50 {
            let first = p.delay(attempt: 1, retryAfter: nil)
            #expect(first >= .milliseconds(50) && first <= .milliseconds(100))
            let third = p.delay(attempt: 3, retryAfter: nil)
            #expect(third >= .milliseconds(200) && third <= .milliseconds(400))
            let late = p.delay(attempt: 40, retryAfter: nil)
            #expect(late >= .milliseconds(500) && late <= .seconds(1))
        }
        #expect(p.delay(attempt: 1, retryAfter: .seconds(2)) == .seconds(2))
        #expect(p.delay(attempt: 1, retryAfter: .seconds(60)) == .seconds(5))
    }

    @Test func batchBodiesAreJSONArrays() {
        let entries = (1...3).map(NDJSONSinkTests.entry)
        #expect(WebhookSink.body(entries, batch: false) == Array(entries[0].json.utf8))
        let array = String(decoding: WebhookSink.body(entries, batch: true), as: UTF8.self)
        #expect(array == "[" + entries.map(\.json).joined(separator: ",") + "]")
    }
}
