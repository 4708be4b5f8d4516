import Foundation

/// A real small filesystem that fills up: a tmpfs mounted at a fresh folder (root only), grown later as an operator
/// freeing space would. Unmounted by `unmount`.
public struct SmallDisk: Sendable {
    public let folder: String

    /// Tests that mount one are enabled only for root.
    public static var canMount: Bool { getuid() == 0 }

    public init(size: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("disk-full-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.mount(["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", folder])
    }

    /// Frees space the way an operator would: the same filesystem, now larger.
    public func grow(to size: String) throws { try Self.mount(["-o", "remount,size=\(size)", folder]) }

    public func unmount() {
        _ = try? Self.run("/bin/umount", [folder])
        try? FileManager.default.removeItem(atPath: folder)
    }

    static func mount(_ arguments: [String]) throws {
        guard try run("/bin/mount", arguments) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}
