import Foundation
@testable import MallocHugePages
import TestSupport
import Testing

/// When an executable restarts itself with glibc's malloc on huge pages, and with what `GLIBC_TUNABLES`.
@Suite struct MallocHugePagesTests {
    @Test func onlyInMadviseModeAndOnlyWhenTheTunableIsUnsaid() {
        #expect(MallocHugePages.tunables(current: nil, transparentHugePages: "madvise") == "glibc.malloc.hugetlb=1")
        #expect(MallocHugePages.tunables(current: "", transparentHugePages: "madvise") == "glibc.malloc.hugetlb=1")
        #expect(MallocHugePages.tunables(current: "glibc.malloc.arena_max=2", transparentHugePages: "madvise")
                == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")
        // Said already (on or off): left alone, which is also what stops a second restart.
        #expect(MallocHugePages.tunables(current: "glibc.malloc.hugetlb=0", transparentHugePages: "madvise") == nil)
        #expect(MallocHugePages.tunables(current: "glibc.malloc.hugetlb=1", transparentHugePages: "madvise") == nil)
        // Huge pages always (nothing to ask for) or never (nothing to get), or no such kernel feature.
        #expect(MallocHugePages.tunables(current: nil, transparentHugePages: "always") == nil)
        #expect(MallocHugePages.tunables(current: nil, transparentHugePages: "never") == nil)
        #expect(MallocHugePages.tunables(current: nil, transparentHugePages: nil) == nil)
    }

    @Test func theKernelsModeIsTheBracketedWord() throws {
        let path = TestFolders.path("thp").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (line, mode) in [("always [madvise] never\n", "madvise"), ("[always] madvise never\n", "always"),
                             ("always madvise [never]\n", "never")] {
            try line.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(MallocHugePages.transparentHugePages(file: path) == mode)
        }
        try "garbled\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(MallocHugePages.transparentHugePages(file: path) == nil)
        #expect(MallocHugePages.transparentHugePages(file: path + "-missing") == nil)
    }
}
