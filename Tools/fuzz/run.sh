#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a bounded time (FUZZ_SECONDS, default 60) from a seed corpus of the
# project's own captures and beacon vectors. Exits non-zero on any finding (crash, trap, sanitizer report).
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-60}
# lld: gold crashes on these objects. libFuzzer instrumentation; SwiftPM aliases `main` to the target's own entry point (which calls
# LLVMFuzzerRunDriver), so libFuzzer's `main` is never pulled from its archive.
swift build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld >&2
bin=.build-fuzz/release
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
mkdir -p "$corpus/ad" "$corpus/btsnoop"
shared=../../../shared/data
if [ -d "$shared/beacons" ]; then
    python3 - "$shared/beacons/beacon-vectors.json" "$corpus/ad" <<'PY'
import json, sys
for k, v in enumerate(json.load(open(sys.argv[1]))["vectors"]):
    open(f"{sys.argv[2]}/v{k}", "wb").write(bytes.fromhex(v["hex"]))
PY
    cp "$shared/btsnoop/capture.btsnoop" "$corpus/btsnoop/"
else
    echo "fuzz: ../shared/data absent, starting from an empty corpus" >&2
    printf 'seed' > "$corpus/ad/seed"; printf 'btsnoop\0' > "$corpus/btsnoop/seed"
fi
for target in FuzzAdvertisingData:ad FuzzBTSnoop:btsnoop; do
    name=${target%%:*}; seeds=${target##*:}
    echo "fuzz: $name for ${seconds}s" >&2
    "$bin/$name" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$corpus/$seeds" 2>&1 | tail -4
done
echo "fuzz: no findings" >&2
