import Foundation
import Testing

/// `scan --backend`: which way to the adapter, and what each says when that way is not there. This machine has
/// neither a system bus nor a Bluetooth kernel (the VM test, Tools/bluez-vm, runs both backends for real).
@Suite struct ScanBackendTests {
    static var noSystemBus: Bool {
        !FileManager.default.fileExists(atPath: "/run/dbus/system_bus_socket")
            && ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] == nil
    }
    static var noAdapter: Bool { !FileManager.default.fileExists(atPath: "/sys/class/bluetooth/hci0") }

    @Test(.enabled(if: noSystemBus, "a system bus is running here"))
    func theDBusBackendWithoutASystemBusSaysSoAndNamesTheAlternative() async throws {
        let r = try await CLIRunner.run(["scan", "--backend", "dbus", "--duration", "0.1"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("cannot connect to the D-Bus system bus"), "\(r.stderr)")
        #expect(r.stderr.contains("--backend hci"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test(.enabled(if: noSystemBus && noAdapter, "a system bus or an adapter is here"))
    func autoFallsBackToRawHCIWithoutBluetoothd() async throws {
        let r = try await CLIRunner.run(["scan", "--duration", "0.1"])
        #expect(r.status == 2)
        // The raw HCI backend's own complaint (no Bluetooth in this kernel, or no adapter), not the bus's.
        #expect(!r.stderr.contains("D-Bus"), "\(r.stderr)")
        #expect(r.stderr.contains("Bluetooth"), "\(r.stderr)")
    }

    @Test func anUnknownBackendIsRefusedWithTheChoices() async throws {
        let r = try await CLIRunner.run(["scan", "--backend", "bluez"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("'auto', 'dbus' or 'hci'"), "\(r.stderr)")
    }
}
