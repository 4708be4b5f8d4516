import Beacons
import Testing
import TriggerEngine
@testable import BlueZDBus

/// The signal sequence bluetoothd sends while discovering (InterfacesAdded, then PropertiesChanged with
/// DuplicateData), to advertisements and through the same pipeline as raw HCI to the same sightings.
@Suite struct BlueZDeviceTableTests {
    typealias P = BlueZDevicePropertiesTests
    let device = "/org/bluez/hci1/dev_C0_FF_EE_00_00_04"
    let t0 = Timestamp(microseconds: 1_764_000_000_000_000)

    @Test func aNewDeviceWithDataIsHeard() throws {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        let u = table.interfacesAdded(path: device, interfaces: .dictionary([
            .string("org.freedesktop.DBus.Introspectable"): .dictionary([:]),
            .string("org.bluez.Device1"): P.recordedDevice(),
        ]), at: t0)
        #expect(u.problems.isEmpty)
        let ad = try #require(u.advertisement)
        #expect(ad.address?.description == "C0:FF:EE:00:00:04")
        #expect(ad.rssi == -60)
        #expect(ad.timestamp == t0)
        #expect(ad.path == device)
    }

    @Test func aChangeCarriesOnlyWhatChangedAndTheTableFillsInTheRest() throws {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        _ = table.interfacesAdded(path: device, interfaces: .dictionary([.string("org.bluez.Device1"): P.recordedDevice()]), at: t0)
        // DuplicateData: the same manufacturer data again, with a new RSSI.
        let u = table.propertiesChanged(path: device, interface: "org.bluez.Device1", changed: .dictionary([
            .string("RSSI"): .variant(.int16(-62)),
            .string("ManufacturerData"): .variant(.dictionary([.uint16(0x004C): .variant(.bytes(P.iBeacon))])),
        ]), invalidated: [], at: t0)
        let ad = try #require(u.advertisement)
        #expect(ad.rssi == -62)
        #expect(ad.address?.description == "C0:FF:EE:00:00:04")
        #expect(ad.advertisingData == [UInt8(P.iBeacon.count + 3), 0xFF, 0x4C, 0x00] + P.iBeacon)
        // Data alone: still heard, with the last RSSI.
        let again = table.propertiesChanged(path: device, interface: "org.bluez.Device1", changed: .dictionary([
            .string("ManufacturerData"): .variant(.dictionary([.uint16(0x004C): .variant(.bytes(P.iBeacon))])),
        ]), invalidated: [], at: t0)
        #expect(again.advertisement?.rssi == -62)
    }

    @Test func changesThatAreNotAdvertisementsAreNotSightings() {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        let u = table.propertiesChanged(path: device, interface: "org.bluez.Device1",
                                        changed: .dictionary([.string("Connected"): .variant(.boolean(false))]),
                                        invalidated: [], at: t0)
        #expect(u.advertisement == nil && u.problems.isEmpty)
        // Another interface, another adapter's device, the adapter itself: not ours.
        let rssi: DBusValue = .dictionary([.string("RSSI"): .variant(.int16(-50))])
        #expect(table.propertiesChanged(path: device, interface: "org.bluez.MediaControl1", changed: rssi,
                                        invalidated: [], at: t0).advertisement == nil)
        #expect(table.propertiesChanged(path: "/org/bluez/hci0/dev_C0_FF_EE_00_00_04", interface: "org.bluez.Device1",
                                        changed: rssi, invalidated: [], at: t0).advertisement == nil)
        #expect(table.propertiesChanged(path: "/org/bluez/hci1", interface: "org.bluez.Device1",
                                        changed: rssi, invalidated: [], at: t0).advertisement == nil)
        #expect(table.propertiesChanged(path: device + "/service0010", interface: "org.bluez.Device1",
                                        changed: rssi, invalidated: [], at: t0).advertisement == nil)
    }

    /// The recorded sequence after a device's last report: RSSI invalidated (nothing changed), then the device
    /// removed. Neither is a sighting; a later report of the same address starts from scratch.
    @Test func theRecordedEndOfADeviceIsNoSighting() throws {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        _ = table.interfacesAdded(path: device, interfaces: .dictionary([.string("org.bluez.Device1"): P.recordedDevice()]), at: t0)
        let u = table.propertiesChanged(path: device, interface: "org.bluez.Device1", changed: .dictionary([:]),
                                        invalidated: ["RSSI"], at: t0)
        #expect(u.advertisement == nil && u.problems.isEmpty)
        table.interfacesRemoved(path: device, interfaces: ["org.freedesktop.DBus.Properties",
                                                           "org.freedesktop.DBus.Introspectable", "org.bluez.Device1"])
        #expect(table.count == 0)
        let again = table.propertiesChanged(path: device, interface: "org.bluez.Device1", changed: .dictionary([
            .string("ManufacturerData"): .variant(.dictionary([.uint16(0x004C): .variant(.bytes(P.iBeacon))])),
        ]), invalidated: [], at: t0)
        let ad = try #require(again.advertisement)
        #expect(ad.rssi == nil)
        #expect(ad.address?.description == "C0:FF:EE:00:00:04")
    }

    @Test func aDeviceSeenBeforeTheTableIsNamedFromItsPath() {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        let u = table.propertiesChanged(path: device, interface: "org.bluez.Device1",
                                        changed: .dictionary([.string("RSSI"): .variant(.int16(-70))]),
                                        invalidated: [], at: t0)
        #expect(u.advertisement?.address?.description == "C0:FF:EE:00:00:04")
        #expect(u.advertisement?.rssi == -70)
    }

    @Test func seededDevicesAreNotHeardUntilTheyChange() {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        #expect(table.seed(path: device, properties: P.recordedDevice()).isEmpty)
        #expect(table.count == 1)
        let u = table.propertiesChanged(path: device, interface: "org.bluez.Device1",
                                        changed: .dictionary([.string("RSSI"): .variant(.int16(-61))]),
                                        invalidated: [], at: t0)
        #expect(u.advertisement?.advertisingData.isEmpty == false)
    }

    @Test func invalidatedAndRemovedPropertiesAreForgotten() {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        _ = table.interfacesAdded(path: device, interfaces: .dictionary([.string("org.bluez.Device1"): P.recordedDevice()]), at: t0)
        let u = table.propertiesChanged(path: device, interface: "org.bluez.Device1",
                                        changed: .dictionary([.string("RSSI"): .variant(.int16(-61))]),
                                        invalidated: ["ManufacturerData"], at: t0)
        #expect(u.advertisement?.advertisingData == [])
        table.interfacesRemoved(path: device, interfaces: ["org.bluez.Device1"])
        #expect(table.count == 0)
    }

    @Test func malformedSignalsGiveTheirProblemsAndNoCrash() {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        let added = table.interfacesAdded(path: device, interfaces: .array([]), at: t0)
        #expect(added.problems == [BlueZPropertyError(property: "interfaces", reason: "expected a{sa{sv}}, got a")])
        #expect(added.advertisement == nil)
        // A wrong RSSI type beside good data: heard, without RSSI, and the problem reported.
        let u = table.propertiesChanged(path: device, interface: "org.bluez.Device1", changed: .dictionary([
            .string("RSSI"): .variant(.uint16(60)),
            .string("ManufacturerData"): .variant(.dictionary([.uint16(0x004C): .variant(.bytes(P.iBeacon))])),
        ]), invalidated: [], at: t0)
        #expect(u.problems == [BlueZPropertyError(property: "RSSI", reason: "expected n, got q")])
        #expect(u.advertisement?.rssi == nil)
    }

    @Test func unavailableRSSIMatchesRawHCI() throws {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        let path = "/org/bluez/hci1/dev_00_AA_01_00_00_00"
        let ad = try #require(table.interfacesAdded(path: path, interfaces: .dictionary([
            .string("org.bluez.Device1"): P.recordedDevice(address: "00:AA:01:00:00:00", rssi: 127)]), at: t0).advertisement)
        var pipeline = BeaconScanPipeline(observer: "gw-1")
        let sighting = pipeline.sighting(adData: ad.advertisingData[...], address: ad.address, rssi: ad.rssi, timestamp: t0)
        let s = try #require(sighting)
        #expect(s.rssi == nil)
        #expect(s.proximity == .unknown)
        // A later change of the data alone keeps "not available", not a stale number.
        let next = table.propertiesChanged(path: path, interface: "org.bluez.Device1", changed: .dictionary([
            .string("ManufacturerData"): .variant(.dictionary([.uint16(0x004C): .variant(.bytes(P.iBeacon))])),
        ]), invalidated: [], at: t0)
        #expect(next.advertisement != nil && next.advertisement?.rssi == nil)
    }

    /// The point of the mapping: bluetoothd's view of an advertisement and the raw HCI report of the same one give
    /// the same sighting through the same pipeline.
    @Test func dbusAndRawHCIGiveTheSameSighting() throws {
        var table = BlueZDeviceTable(adapterPath: "/org/bluez/hci1")
        let ad = try #require(table.interfacesAdded(
            path: device, interfaces: .dictionary([.string("org.bluez.Device1"): P.recordedDevice(rssi: -60)]), at: t0).advertisement)
        var viaDBus = BeaconScanPipeline(observer: "gw-1")
        let dbusSighting = viaDBus.sighting(adData: ad.advertisingData[...], address: ad.address, rssi: ad.rssi,
                                            timestamp: ad.timestamp)
        let fromDBus = try #require(dbusSighting)
        // The report as the controller sends it: flags, then the iBeacon manufacturer data.
        let air: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00] + P.iBeacon
        var viaHCI = BeaconScanPipeline(observer: "gw-1")
        let report = HCIAdvertisingReport(eventType: 3, addressType: 1,
                                          address: try #require(BluetoothAddress(string: "C0:FF:EE:00:00:04")),
                                          rssi: -60, data: air[...])
        let hciSighting = viaHCI.sighting(report: report, timestamp: t0)
        let fromHCI = try #require(hciSighting)
        #expect(fromDBus == fromHCI)
        #expect(fromDBus.identity == .iBeacon(uuid: P.uuid, major: 42, minor: 43))
        #expect(fromDBus.address == "C0:FF:EE:00:00:04" && fromDBus.rssi == -60 && fromDBus.txPower == -59)
        #expect(viaDBus.statistics.beacons == 1)
    }
}
