#!/usr/bin/env bash
# Builds every libFuzzer target in one `swift build` and runs each, one after the other, for FUZZ_SECONDS (default 60)
# from seed corpora built at run time from ../shared/data (seeds.py; hand-made seeds where there is no shared data).
# Prints each target's final libFuzzer stats; exits non-zero on any finding (crash, broken invariant, sanitizer report,
# timeout, out-of-memory). FUZZ_TARGETS (space-separated names) runs a subset; FUZZ_RUNS also bounds executions (the
# long runs in docs/fuzzing.md); FUZZ_ARTIFACTS keeps crash inputs and each target's log there (default: a temp dir).
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-60}
# The Swift runtime's backtracer would catch the fatal signal before libFuzzer and ASan report it (and trips ASan itself).
export SWIFT_BACKTRACE=enable=no
# lld: gold crashes on these objects. libFuzzer instrumentation; SwiftPM aliases `main` to the target's own entry point
# (which calls LLVMFuzzerRunDriver), so libFuzzer's `main` is never pulled from its archive. One job: CI machines are small.
swift build -c release --jobs "${FUZZ_BUILD_JOBS:-1}" --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address \
    -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld >&2
bin=.build-fuzz/release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus=$work/corpus
artifacts=${FUZZ_ARTIFACTS:-$work/artifacts}
mkdir -p "$corpus/ad" "$corpus/btsnoop" "$artifacts"
shared=../../../shared/data
if [ -d "$shared" ]; then
    python3 - "$shared/beacons/beacon-vectors.json" "$corpus/ad" <<'PY'
import json, sys
for k, v in enumerate(json.load(open(sys.argv[1]))["vectors"]):
    open(f"{sys.argv[2]}/v{k}", "wb").write(bytes.fromhex(v["hex"]))
PY
    cp "$shared/btsnoop/capture.btsnoop" "$corpus/btsnoop/"
else
    echo "fuzz: $shared absent (it is not part of the repository): starting from tiny hand-made seeds only" >&2
    printf 'seed' > "$corpus/ad/seed"; printf 'btsnoop\0' > "$corpus/btsnoop/seed"
fi
python3 seeds.py "$shared" "$corpus"

# target:corpus[:dictionary] (dicts/*.dict: the format's tokens and member names)
all="FuzzAdvertisingData:ad FuzzBTSnoop:btsnoop FuzzGPX:gpx:xml FuzzNMEA:nmea:nmea FuzzCSV:csv FuzzNDJSONFixes:ndjson:json
FuzzNDJSONSightings:sightings:json FuzzOwnTracks:owntracks:json FuzzTraccar:traccar:json FuzzTraceDetect:detect
FuzzRequestJSON:requests:json FuzzGeoJSON:geojson:json FuzzIngestFraming:framing:json"
failed=()
for target in $all; do
    IFS=: read -r name seeds dict <<<"$target"
    if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then continue; fi
    limit=(-max_total_time="$seconds")
    if [ -n "$dict" ]; then limit+=(-dict="dicts/$dict.dict"); fi
    if [ -n "${FUZZ_RUNS:-}" ]; then limit+=(-runs="$FUZZ_RUNS"); fi
    echo "fuzz: $name (${limit[*]})" >&2
    log=$artifacts/$name.log
    # -timeout: one input taking 10 s is a hang finding. The corpus dir is a scratch copy, so new coverage is kept
    # for the rest of this run only.
    if "$bin/$name" "${limit[@]}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/$name-" "$corpus/$seeds" >"$log" 2>&1; then
        # The last coverage line and the final stats.
        grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true
        grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" || true
    else
        echo "fuzz: $name FOUND SOMETHING:" >&2
        grep -E -A3 'fuzz invariant broken|ERROR: (libFuzzer|AddressSanitizer)|Fatal error|SUMMARY' "$log" | head -40 >&2 || tail -40 "$log" >&2
        ls "$artifacts"/"$name"-* >&2 2>/dev/null || true
        failed+=("$name")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: no findings" >&2
