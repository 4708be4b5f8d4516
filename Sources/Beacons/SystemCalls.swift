#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Small POSIX helpers shared by the file- and socket-owning types (BTSnoopReader/Writer, HCIScanner), so that their
// own `close()` methods do not shadow the C function.


func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

/// The current errno, read right after the failing call.
var currentErrno: Int32 { errno }

/// Waits for input on one descriptor: > 0 ready, 0 timeout, < 0 error (errno set). `revents` is what happened.
func pollDescriptor(_ fd: Int32, timeoutMilliseconds: Int32) -> (result: Int32, revents: Int16) {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let r = poll(&p, 1, timeoutMilliseconds)
    return (r, p.revents)
}
