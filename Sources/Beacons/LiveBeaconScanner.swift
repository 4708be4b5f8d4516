import TriggerEngine

/// A scanner listening to a live adapter, whatever it goes through: raw HCI (`HCIScanner`) or bluetoothd over D-Bus
/// (`BlueZScanner` in BlueZDBus). Both hand their advertisements to the same `BeaconScanPipeline`, so `scan` and
/// `serve --bluetooth` run one loop and get the same sightings from either. Not Sendable: use from one thread.
public protocol LiveBeaconScanner: AnyObject {
    /// Events or signals that could not be read (counted and skipped); the owner adds them to its metrics.
    var malformedEvents: Int { get }
    /// Waits up to `timeoutMilliseconds` and hands out the sightings of every advertisement that arrived; returns
    /// the number of advertisements (0 on timeout).
    @discardableResult
    func poll(timeoutMilliseconds: Int32, pipeline: inout BeaconScanPipeline,
              _ body: (BeaconSighting) -> Void) throws -> Int
    /// Stops scanning; the first error is thrown after every step was attempted.
    func stop() throws
    /// Stops scanning and releases the adapter or connection now.
    func close() throws
}
