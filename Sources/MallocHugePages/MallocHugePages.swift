#if canImport(Glibc)
import Glibc
#endif

/// Puts the process's heap on transparent huge pages, where the kernel gives them only when asked (`madvise` mode,
/// Debian's default).
///
/// The engine's state is large and read at random: with a million regions every fix probes the cell table, a
/// cell's range, entry boxes, a region's geometry, the device's record and its pair list, in hundreds of megabytes
/// of arrays and small heap objects; on 4 KB pages nearly each of those loads also misses the TLB. glibc's malloc
/// asks for huge pages when the tunable `glibc.malloc.hugetlb=1` is set, but it reads `GLIBC_TUNABLES` once, as
/// the process starts, before any Swift code runs. So each executable calls this first: it sets the tunable and
/// `exec`s the same binary with the same arguments, once.
///
/// Measured with `geotrigger-bench engine --shapes circles --densities sparse` (pinned, alternating, three pairs):
/// at 1M regions 6.32–6.55M fixes/s with it against 5.64–6.06M without, regions loaded 220–245k/s against
/// 179–202k/s, less system time (1.51–1.89 s against 2.55–3.22 s; 16k page faults against 656k in one run); at
/// 100k regions the same within the noise. In another alternation loading at 1M was slower with it (167–190k
/// against 212–258k/s): huge pages are zeroed, and compacted when memory is fragmented, for every large
/// short-lived array. Advising only the index's arrays (`MADV_HUGEPAGE` and `MADV_COLLAPSE` once built) did not speed lookups up: the device records,
/// pair lists and name strings in the general heap are as much of the misses.
///
/// Nothing happens when the kernel uses huge pages always or never, when `GLIBC_TUNABLES` already says anything of
/// `glibc.malloc.hugetlb` (so `GLIBC_TUNABLES=glibc.malloc.hugetlb=0` turns this off), or when the `exec` fails
/// (the process goes on as it was).
public enum MallocHugePages {
    static let tunable = "glibc.malloc.hugetlb"

    public static func restartWithThemIfUseful() {
        let current = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        guard let wanted = tunables(current: current, transparentHugePages: transparentHugePages()) else { return }
        setenv("GLIBC_TUNABLES", wanted, 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Still here: the exec failed. Leave the environment as it was for whatever this process starts.
        if let current { setenv("GLIBC_TUNABLES", current, 1) } else { unsetenv("GLIBC_TUNABLES") }
    }

    /// The `GLIBC_TUNABLES` to restart with, or nil to go on as is.
    static func tunables(current: String?, transparentHugePages mode: String?) -> String? {
        guard mode == "madvise", current?.contains(tunable) != true else { return nil }
        let wanted = tunable + "=1"
        guard let current, !current.isEmpty else { return wanted }
        return current + ":" + wanted
    }

    /// The kernel's transparent huge page mode (`always`, `madvise` or `never`), or nil when it has none.
    static func transparentHugePages(file path: String = "/sys/kernel/mm/transparent_hugepage/enabled") -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }
}
