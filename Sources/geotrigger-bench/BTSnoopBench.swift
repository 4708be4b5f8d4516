import ArgumentParser
import Beacons
import Foundation
import TriggerEngine

/// Writes a btsnoop capture (H4 datalink) of many LE Advertising Reports carrying iBeacon, Eddystone-UID and
/// non-beacon advertisements, for timing `geotrigger scan --btsnoop` end to end.
struct BTSnoopBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "btsnoop", abstract: "Writes a btsnoop capture with N advertising reports.")

    @Option(help: "Advertising reports.") var reports = 1_000_000
    @Option(help: "Output file.") var out: String

    func run() throws {
        let writer = try BTSnoopWriter(path: out, datalink: .h4)
        let uuid = UUID128(string: "e2c56db5-dffb-48d2-b060-d0f5a71096e0")!
        let base = Timestamp(year: 2026, month: 11, day: 20)
        for k in 0..<reports {
            let identity: BeaconIdentity = k % 3 == 2
                ? .eddystoneUID(namespace: EddystoneNamespace(high: 1, low: UInt64(k % 50)), instance: EddystoneInstance(value: UInt64(k % 7)))
                : .iBeacon(uuid: uuid, major: UInt16(k % 100), minor: UInt16(k % 13))
            let isEddystone = k % 3 == 2
            let frame = BeaconFrame(kind: isEddystone ? .eddystoneUID : .iBeacon, identity: identity, txPower: -59,
                                    rangingPower: isEddystone ? -18 : nil)
            guard let ad = frame.advertisingData() else { continue }
            let report = HCIAdvertisingReport(format: .legacy, eventType: 3, addressType: 1,
                                              address: BluetoothAddress(value: 0xC0FFEE000000 | UInt64(k % 500)),
                                              rssi: -50 - k % 40, txPower: nil, data: ArraySlice(ad))
            guard let event = HCIAdvertisingReport.leMetaEvent([report]) else { continue }
            try writer.appendEvent(event, timestamp: Timestamp(microseconds: base.microseconds + Int64(k) * 10_000))
        }
        try writer.close()
        print("wrote \(reports) reports to \(out)")
    }
}
