#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one errno wrapper: what the system says about a failed call, as every message and log line quotes it.
public enum SystemError {
    /// `strerror`'s text for `code` (the calling thread's `errno` by default), e.g. "No space left on device".
    public static func text(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// The text with the number, e.g. "Address family not supported by protocol (errno 97)", where the number
    /// helps (socket and HCI calls).
    public static func numbered(_ code: Int32 = errno) -> String {
        "\(text(code)) (errno \(code))"
    }
}
