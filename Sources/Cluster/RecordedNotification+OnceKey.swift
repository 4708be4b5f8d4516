import EngineLog
import Journal

extension RecordedNotification {
    /// The key a `repeats: false` firing claims (`r.<hex identifier>.<revision>`): the first claim of it in the
    /// deployment is the one published.
    var onceKey: String {
        let tail = deliveryId.split(separator: "/").last ?? ""
        return "r." + identifier.utf8.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            + "." + tail.prefix { $0.isNumber }
    }
}
