import Beacons
import Testing
import TriggerEngine
@testable import BlueZDBus

/// Device1 property dictionaries, built as the message reader produces them (a{sv}: `.dictionary` of `.string` keys
/// and `.variant` values), to the advertising data the beacon decoders read.
@Suite struct BlueZDevicePropertiesTests {
    static let uuid = UUID128(string: "e2c56db5-dffb-48d2-b060-d0f5a71096e0")!
    /// iBeacon after Apple's company id: 02 15, UUID, major 42, minor 43, measured power −59.
    static let iBeacon: [UInt8] = [0x02, 0x15] + uuid.bytes + [0x00, 0x2A, 0x00, 0x2B, 0xC5]
    /// Eddystone-UID after 0xFEAA: frame type 00, ranging −20 dBm, namespace (10), instance (6), RFU (2).
    static let eddystoneUID: [UInt8] = [0x00, 0xEC] + Array(1...10) + [0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0x00, 0x00]
    static let eddystoneUUID = "0000feaa-0000-1000-8000-00805f9b34fb"

    /// The Device1 dictionary of an InterfacesAdded that bluetoothd 5.66 sent in the VM test (Tools/bluez-vm,
    /// recorded with dbus-monitor) for a report injected on hci1 from C0:FF:EE:00:00:06 at −60 dBm, property for
    /// property; only the address and the iBeacon's major and minor (7, 1 there) are this suite's.
    static func recordedDevice(address: String = "C0:FF:EE:00:00:04", rssi: Int16 = -60) -> DBusValue {
        .dictionary([
            .string("Address"): .variant(.string(address)),
            .string("AddressType"): .variant(.string("random")),
            .string("Alias"): .variant(.string(address.replacing(":", with: "-"))),
            .string("Paired"): .variant(.boolean(false)),
            .string("Bonded"): .variant(.boolean(false)),
            .string("Trusted"): .variant(.boolean(false)),
            .string("Blocked"): .variant(.boolean(false)),
            .string("LegacyPairing"): .variant(.boolean(false)),
            .string("RSSI"): .variant(.int16(rssi)),
            .string("Connected"): .variant(.boolean(false)),
            .string("UUIDs"): .variant(.array([])),
            .string("Adapter"): .variant(.objectPath("/org/bluez/hci1")),
            .string("ManufacturerData"): .variant(.dictionary([.uint16(76): .variant(.bytes(iBeacon))])),
            .string("ServicesResolved"): .variant(.boolean(false)),
        ])
    }

    @Test func readsTheDocumentedTypes() {
        let (p, problems) = BlueZDeviceProperties.read(Self.recordedDevice())
        #expect(problems.isEmpty)
        #expect(p.address?.description == "C0:FF:EE:00:00:04")
        #expect(p.addressType == "random")
        #expect(p.rssi == -60)
        #expect(p.txPower == nil)
        #expect(p.manufacturerData == [0x004C: Self.iBeacon])
        #expect(p.serviceData == nil)
        #expect(p.isAdvertisement)
    }

    /// btvirt's own advertisement arrives with RSSI 127, "not available", which bluetoothd passes on as it is.
    @Test func rssi127IsNotAvailableAsOnRawHCI() {
        let (p, problems) = BlueZDeviceProperties.read(Self.recordedDevice(address: "00:AA:01:00:00:00", rssi: 127))
        #expect(problems.isEmpty)
        #expect(p.rssi == nil)
        #expect(p.isAdvertisement)
    }

    @Test func manufacturerDataBecomesTheADStructureTheDecoderReads() throws {
        let (p, _) = BlueZDeviceProperties.read(Self.recordedDevice())
        let (bytes, problems) = p.advertisingData()
        #expect(problems.isEmpty)
        // Length, type 0xFF, company 0x004C little-endian, then the payload: the bytes on air.
        #expect(bytes == [UInt8(Self.iBeacon.count + 3), 0xFF, 0x4C, 0x00] + Self.iBeacon)
        let frame = try #require(BeaconFrameDecoder().decode(bytes))
        #expect(frame.identity == .iBeacon(uuid: Self.uuid, major: 42, minor: 43))
        #expect(frame.txPower == -59)
    }

    @Test func eddystoneServiceDataIsSentInItsSixteenBitForm() throws {
        let props: DBusValue = .dictionary([
            .string("ServiceData"): .variant(.dictionary([.string(Self.eddystoneUUID): .variant(.bytes(Self.eddystoneUID))])),
            .string("TxPower"): .variant(.int16(4)),
        ])
        let (p, problems) = BlueZDeviceProperties.read(props)
        #expect(problems.isEmpty)
        #expect(p.txPower == 4)
        let (bytes, tooLong) = p.advertisingData()
        #expect(tooLong.isEmpty)
        #expect(bytes == [0x02, 0x0A, 0x04, UInt8(Self.eddystoneUID.count + 3), 0x16, 0xAA, 0xFE] + Self.eddystoneUID)
        let frame = try #require(BeaconFrameDecoder().decode(bytes))
        #expect(frame.kind == .eddystoneUID)
        #expect(frame.txPower == -20 - BeaconFrame.eddystoneRangingOffset)
    }

    @Test func aServiceOutsideTheBaseUUIDKeepsItsFullUUID() {
        let uuid = "e2c56db5-dffb-48d2-b060-d0f5a71096e0"
        let (p, _) = BlueZDeviceProperties.read(.dictionary([
            .string("ServiceData"): .variant(.dictionary([.string(uuid): .variant(.bytes([1, 2]))])),
        ]))
        // Type 0x21 (service data, 128-bit UUID), the UUID least significant byte first, then the data.
        #expect(p.advertisingData().bytes == [19, 0x21] + Self.uuid.bytes.reversed() + [1, 2])
    }

    @Test func altBeaconManufacturerDataDecodes() throws {
        let payload: [UInt8] = [0xBE, 0xAC] + Self.uuid.bytes + [0x00, 0x01, 0x00, 0x02, 0xC5, 0x00]
        let (p, _) = BlueZDeviceProperties.read(.dictionary([
            .string("ManufacturerData"): .variant(.dictionary([.uint16(0x0118): .variant(.bytes(payload))])),
        ]))
        let frame = try #require(BeaconFrameDecoder().decode(p.advertisingData().bytes))
        #expect(frame.identity == .altBeacon(id1: Self.uuid, id2: 1, id3: 2))
        #expect(frame.manufacturerId == 0x0118)
    }

    // MARK: Malformed values: reported precisely, left out, never a crash.

    @Test func aWrongVariantTypeIsReportedAndTheRestStillRead() {
        let (p, problems) = BlueZDeviceProperties.read(.dictionary([
            .string("RSSI"): .variant(.int32(-60)),
            .string("TxPower"): .variant(.string("4")),
            .string("Address"): .variant(.string("C0:FF:EE:00:00:04")),
        ]))
        #expect(problems == [BlueZPropertyError(property: "RSSI", reason: "expected n, got i"),
                             BlueZPropertyError(property: "TxPower", reason: "expected n, got s")])
        #expect(p.rssi == nil && p.txPower == nil)
        #expect(p.address?.description == "C0:FF:EE:00:00:04")
    }

    @Test func aValueThatIsNotAVariantIsReported() {
        let (p, problems) = BlueZDeviceProperties.read(.dictionary([.string("RSSI"): .int16(-60)]))
        #expect(problems == [BlueZPropertyError(property: "RSSI", reason: "expected a variant, got n")])
        #expect(p.rssi == nil)
    }

    @Test func manufacturerDataOfTheWrongShapeIsReported() {
        let cases: [(DBusValue, String)] = [
            (.variant(.bytes([1, 2])), "expected a{qv}, got ay"),
            (.variant(.dictionary([.string("76"): .variant(.bytes(Self.iBeacon))])),
             "expected company identifiers of type q, got s"),
            (.variant(.dictionary([.uint16(0x004C): .variant(.string("beacon"))])), "company 0x004C: expected v(ay), got v(s)"),
            (.variant(.dictionary([.uint16(0x004C): .bytes(Self.iBeacon)])), "company 0x004C: expected v(ay), got ay"),
        ]
        for (value, reason) in cases {
            let (p, problems) = BlueZDeviceProperties.read(.dictionary([.string("ManufacturerData"): value]))
            #expect(problems == [BlueZPropertyError(property: "ManufacturerData", reason: reason)])
            #expect(p.manufacturerData == nil)
        }
    }

    @Test func serviceDataWithABadUUIDIsReported() {
        let (p, problems) = BlueZDeviceProperties.read(.dictionary([
            .string("ServiceData"): .variant(.dictionary([.string("feaa"): .variant(.bytes(Self.eddystoneUID))])),
        ]))
        #expect(problems == [BlueZPropertyError(property: "ServiceData", reason: "\"feaa\" is not a 128-bit UUID")])
        #expect(p.serviceData == nil)
    }

    @Test func aBadAddressIsReported() {
        let (p, problems) = BlueZDeviceProperties.read(.dictionary([.string("Address"): .variant(.string("C0:FF:EE"))]))
        #expect(problems == [BlueZPropertyError(property: "Address", reason: "\"C0:FF:EE\" is not a Bluetooth address")])
        #expect(p.address == nil)
    }

    @Test func somethingOtherThanADictionaryIsOneProblem() {
        let (p, problems) = BlueZDeviceProperties.read(.array([.string("RSSI")]))
        #expect(problems == [BlueZPropertyError(property: "properties", reason: "expected a{sv}, got a")])
        #expect(p == BlueZDeviceProperties())
    }

    @Test func emptyDataIsNoBeaconButNoCrash() {
        let (p, problems) = BlueZDeviceProperties.read(.dictionary([
            .string("ManufacturerData"): .variant(.dictionary([.uint16(0x004C): .variant(.bytes([]))])),
            .string("ServiceData"): .variant(.dictionary([:])),
        ]))
        #expect(problems.isEmpty)
        // The company id alone: a valid AD structure the decoder reads as "not a beacon".
        #expect(p.advertisingData().bytes == [3, 0xFF, 0x4C, 0x00])
        #expect(BeaconFrameDecoder().decode(p.advertisingData().bytes) == nil)
    }

    @Test func dataTooLongForOneADStructureIsReportedAndLeftOut() {
        let (p, _) = BlueZDeviceProperties.read(.dictionary([
            .string("ManufacturerData"): .variant(.dictionary([.uint16(0x004C): .variant(.bytes(Array(repeating: 0, count: 253)))])),
            .string("TxPower"): .variant(.int16(300)),
        ]))
        let (bytes, problems) = p.advertisingData()
        #expect(bytes.isEmpty)
        #expect(problems == [
            BlueZPropertyError(property: "TxPower", reason: "300 dBm does not fit the AD field's signed byte"),
            BlueZPropertyError(property: "ManufacturerData", reason: "company 0x004C: 255 bytes do not fit one AD structure (254)"),
        ])
    }
}
