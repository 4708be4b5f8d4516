import Foundation
import Testing
import TestSupport

/// `serve` restarts itself once at start with glibc's malloc on transparent huge pages (`MallocHugePages`) when the
/// kernel gives them only on request, and leaves a `GLIBC_TUNABLES` that says otherwise alone.
@Suite struct HugePagesServeTests {
    /// The kernel's mode, as the executable reads it.
    static var mode: String? {
        guard let text = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8),
              let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// The environment the running process was started (exec'd) with.
    static func environment(of pid: Int32) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(arguments: [nil, "glibc.malloc.hugetlb=0"] as [String?])
    func serveAsksForHugePagesUnlessToldOtherwise(preset: String?) async throws {
        let work = try TestServer()
        let database = work.directory.appendingPathComponent("g.sqlite").path
        let server = try ServeProcess(arguments: ["--database", database, "--listen", "127.0.0.1:0"], directory: work.directory,
                                      environment: preset.map { ["GLIBC_TUNABLES": $0] } ?? [:])
        try await server.waitUntilListening()
        defer { server.kill9() }  // cleanup only: nothing here depends on an orderly shutdown
        let tunables = try Self.environment(of: server.process.processIdentifier).filter { $0.hasPrefix("GLIBC_TUNABLES=") }
        switch (preset, Self.mode) {
        case (nil, "madvise"): #expect(tunables == ["GLIBC_TUNABLES=glibc.malloc.hugetlb=1"])
        case (nil, _): #expect(tunables.isEmpty, "huge pages are \(Self.mode ?? "absent") here: nothing to ask for")
        case (let preset?, _): #expect(tunables == ["GLIBC_TUNABLES=\(preset)"])
        }
        // It serves as ever.
        #expect(try await server.get("/readyz").head.status.code == 200)
    }
}
