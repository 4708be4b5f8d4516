import CGEOS

/// One GEOS context handle (reentrant API). GEOS caches are not thread-safe, so a context and every geometry made
/// with it stay on one thread: the type is deliberately not `Sendable`.
final class GEOSContext {
    let handle: OpaquePointer
    private let messages: MessageBox

    /// Collects GEOS's error messages through the handler's userdata pointer.
    final class MessageBox {
        var last: String?
    }

    init() {
        guard let h = GEOS_init_r() else { fatalError("GEOS_init_r returned NULL: out of memory") }
        handle = h
        messages = MessageBox()
        let box = Unmanaged.passUnretained(messages).toOpaque()
        _ = GEOSContext_setErrorMessageHandler_r(handle, { message, userdata in
            guard let message, let userdata else { return }
            Unmanaged<GEOSContext.MessageBox>.fromOpaque(userdata).takeUnretainedValue().last = String(cString: message)
        }, box)
    }

    deinit { GEOS_finish_r(handle) }

    /// GEOS's last error message, or a fallback naming the operation, cleared once read.
    func takeError(_ operation: String) -> GeometryError {
        defer { messages.last = nil }
        return GeometryError(messages.last ?? "GEOS \(operation) failed")
    }

    /// The GEOS library version, e.g. "3.11.1-CAPI-1.17.1".
    public static var version: String { String(cString: GEOSversion()) }
}
