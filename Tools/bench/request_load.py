#!/usr/bin/env python3
"""Loading circle requests, whole process (issue 49), with the peer's figure from the same run on the same bytes.

1. Start: `geotrigger replay` of one fix with no regions, process start to exit (median of 20 runs).
2. File: `geotrigger replay REGIONS ONE_FIX` with 10k, 100k and 1M circle requests (SPEC §1 JSON), process start
   to exit, minus the median start of (1): requests/s.
3. HTTP: one `POST /v1/requests` of the same bytes to `geotrigger serve` (SQLite listing, journal, fsync), from
   sending to the answer; then the restart of that service to listening (restore from journal and checkpoint).
4. The peer: Python's `json.loads` of the same bytes (C-accelerated, best of 3): reading the JSON alone, the bar
   issue 49 sets for loading.

Prints one line per measurement; the ratio of each rate to json.loads's rate on the same file.

Usage: request_load.py [--bin .build/release/geotrigger] [--counts 10000,100000,1000000] [--http-counts ...]
"""
import argparse, json, os, random, re, shutil, statistics, subprocess, sys, tempfile, time, http.client


def requests_json(n, seed=49):
    rng = random.Random(seed)
    items = []
    for i in range(n):
        lat = 53.5 + rng.uniform(-0.3, 0.3)
        lon = 9.9 + rng.uniform(-0.5, 0.5)
        items.append('{"identifier":"r%d","content":{"title":"{event} {region.id}","body":"{device} at {fix.time}"},'
                     '"trigger":{"repeats":true,"region":{"type":"circle","id":"c%d","center":{"latitude":%.7f,'
                     '"longitude":%.7f},"radius":120}}}' % (i, i, lat, lon))
    return ("[" + ",".join(items) + "]").encode()


def run(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"{cmd[:3]} failed ({r.returncode}):\n{r.stderr.decode()[-2000:]}")
    return wall


def json_peer(data):
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        json.loads(data)
        best = min(best, time.perf_counter() - t)
    return best


def start_server(binary, work):
    log = open(os.path.join(work, "serve.log"), "w+")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOTRIGGER_")}
    t = time.perf_counter()
    proc = subprocess.Popen([binary, "serve", "--database", os.path.join(work, "g.sqlite"), "--listen", "127.0.0.1:0",
                             "--clock", "event", "--max-body-bytes", str(1 << 30), "--log-level", "notice"],
                            stderr=log, stdout=subprocess.DEVNULL, env=env)
    while True:
        log.seek(0)
        m = re.search(r" listening host=\S+ port=(\d+)", log.read())
        if m:
            return proc, int(m.group(1)), time.perf_counter() - t
        if proc.poll() is not None:
            log.seek(0)
            sys.exit("serve did not start:\n" + log.read()[-3000:])
        time.sleep(0.005)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/geotrigger")
    ap.add_argument("--counts", default="10000,100000,1000000")
    ap.add_argument("--http-counts", default="10000,100000,1000000")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="geotrigger-load-")
    try:
        fix = os.path.join(work, "one.ndjson")
        with open(fix, "w") as f:
            f.write('{"device":"v1","timestamp":1760000000,"latitude":53.5,"longitude":9.9,"horizontalAccuracy":10}\n')
        empty = os.path.join(work, "empty.json")
        with open(empty, "w") as f:
            f.write("[]")
        starts = [run([a.bin, "replay", empty, fix, "--format", "ndjson", "-o", "/dev/null"]) for _ in range(20)]
        start = statistics.median(starts)
        print(f"start\tno regions, one fix, process start to exit\tmedian {start * 1e3:.1f} ms\t"
              f"(min {min(starts) * 1e3:.1f}, max {max(starts) * 1e3:.1f}; target <= 20 ms)", flush=True)
        counts = sorted({int(c) for c in a.counts.split(",") if c} | {int(c) for c in a.http_counts.split(",") if c})
        for n in counts:
            data = requests_json(n)
            path = os.path.join(work, f"circles-{n}.json")
            with open(path, "wb") as f:
                f.write(data)
            peer = json_peer(data)
            peer_rate = n / peer
            if str(n) in a.counts.split(","):
                wall = run([a.bin, "replay", path, fix, "--format", "ndjson", "-o", "/dev/null"])
                rate = n / max(1e-9, wall - start)
                print(f"load-file\t{n} circles\t{len(data) / 1e6:.1f} MB\t{rate:,.0f} requests/s ({wall:.2f} s whole process)\t"
                      f"json.loads {peer_rate:,.0f}/s ({peer:.2f} s)\tratio {rate / peer_rate:.2f}", flush=True)
            if str(n) in a.http_counts.split(","):
                server = os.path.join(work, f"serve-{n}")
                os.makedirs(server)
                proc, port, _ = start_server(a.bin, server)
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
                    t = time.perf_counter()
                    conn.request("POST", "/v1/requests", body=data, headers={"Content-Type": "application/json"})
                    r = conn.getresponse()
                    answer = r.read()
                    wall = time.perf_counter() - t
                    if r.status != 200:
                        sys.exit(f"POST {n}: {r.status} {answer[:300]!r}")
                finally:
                    proc.terminate()
                    proc.wait()
                proc, _, restart = start_server(a.bin, server)
                proc.terminate()
                proc.wait()
                rate = n / wall
                print(f"load-http\t{n} circles\tPOST /v1/requests {rate:,.0f} requests/s ({wall:.2f} s)\t"
                      f"restart to listening {restart:.2f} s\tjson.loads {peer_rate:,.0f}/s\tratio {rate / peer_rate:.2f}",
                      flush=True)
                shutil.rmtree(server)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
