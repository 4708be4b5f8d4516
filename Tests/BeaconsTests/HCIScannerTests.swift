#if canImport(Glibc)
import Glibc
#endif
import Testing
import TriggerEngine
@testable import Beacons

/// The libbluetooth scanner's error paths. The real scan path needs a kernel with Bluetooth; it is exercised by the
/// QEMU/btvirt test (shared/BLUEZ-VM.md), not here.
@Suite struct HCIScannerTests {
    /// Whether this kernel has AF_BLUETOOTH at all (most containers and CI machines do not).
    static let kernelHasBluetooth: Bool = {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        if fd >= 0 { close(fd); return true }
        return errno != EAFNOSUPPORT
    }()

    @Test func openingHci0GivesAClearErrorNotACrash() {
        do {
            let scanner = try HCIScanner(configuration: .init(adapter: "hci0"))
            // A machine with a real adapter: opening is fine; close it again without scanning.
            try scanner.close()
        } catch {
            #expect(!error.description.isEmpty)
            if !Self.kernelHasBluetooth {
                #expect(error == .bluetoothUnsupported)
                #expect(error.description.contains("no Bluetooth support"))
                #expect(error.description.contains("AF_BLUETOOTH"))
            }
        }
    }

    @Test func openingByIndexTakesTheSamePath() {
        #expect(throws: HCIScannerError.self) { try HCIScanner(configuration: .init(adapterIndex: 4711)) }
    }

    @Test func invalidConfigurationIsRejectedBeforeTouchingTheKernel() {
        #expect(throws: HCIScannerError.self) {
            try HCIScanner(configuration: .init(intervalMilliseconds: 1, windowMilliseconds: 1))
        }
        do {
            _ = try HCIScanner(configuration: .init(intervalMilliseconds: 10, windowMilliseconds: 20))
            Issue.record("window > interval accepted")
        } catch {
            guard case .invalidConfiguration(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("exceeds the interval"))
        }
    }

    @Test func errorsExplainWhatToDo() {
        #expect(HCIScannerError.permissionDenied(operation: "hci_open_dev").description.contains("CAP_NET_RAW"))
        #expect(HCIScannerError.permissionDenied(operation: "x").description.contains("setcap cap_net_raw+ep"))
        #expect(HCIScannerError.adapterBusy("hci0", operation: "LE Set Scan Enable").description.contains("bluetoothd"))
        #expect(HCIScannerError.adapterDown("hci0").description.contains("hciconfig hci0 up"))
        #expect(HCIScannerError.noAdapter("hci7").description.contains("hci7"))
        #expect(HCIScannerError.system(operation: "read", errno: EIO).description.contains("read failed"))
    }

    @Test func errnoClassification() {
        #expect(HCIScanner.classify(EPERM, operation: "op", adapter: "hci0") == .permissionDenied(operation: "op"))
        #expect(HCIScanner.classify(EACCES, operation: "op", adapter: "hci0") == .permissionDenied(operation: "op"))
        #expect(HCIScanner.classify(EBUSY, operation: "op", adapter: "hci0") == .adapterBusy("hci0", operation: "op"))
        #expect(HCIScanner.classify(ENODEV, operation: "op", adapter: "hci0") == .noAdapter("hci0"))
        #expect(HCIScanner.classify(ENETDOWN, operation: "op", adapter: "hci0") == .adapterDown("hci0"))
        #expect(HCIScanner.classify(EAFNOSUPPORT, operation: "op", adapter: "hci0") == .bluetoothUnsupported)
        #expect(HCIScanner.classify(EIO, operation: "op", adapter: "hci0") == .system(operation: "op", errno: EIO))
    }

    @Test func adapterNamesResolveWithoutTheKernel() throws {
        #expect(try HCIScanner.resolve("hci0") == 0)
        #expect(try HCIScanner.resolve("hci12") == 12)
        #expect(throws: HCIScannerError.noAdapter("wlan0")) { try HCIScanner.resolve("wlan0") }
        #expect(throws: HCIScannerError.noAdapter("hci")) { try HCIScanner.resolve("hci") }
        #expect(throws: HCIScannerError.noAdapter("hci-1")) { try HCIScanner.resolve("hci-1") }
    }

    @Test func stopFlagIsSharedAcrossThreads() async {
        let flag = HCIScanner.StopFlag()
        await Task.detached { flag.stop() }.value
        #expect(flag.isStopped)
    }
}
