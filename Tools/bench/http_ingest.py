#!/usr/bin/env python3
"""HTTP ingest benchmark for `geotrigger serve` (issue 5).

Starts the given (release) binary on a temporary SQLite file and a free loopback port with an NDJSON file sink, adds
circle requests, then posts NDJSON batches of fixes from N concurrent keep-alive connections (each connection owns
its devices, so per-device order holds). Reports fixes/s over the measured phase and the p50/p99 of each request's
send-to-answer time. The server answers a batch only after the SQLite transaction holding its device state and the
notifications it fired has committed, so that time bounds, for every fix of the batch, the time from its arrival to
its notification being in the outbox.
"""
import argparse, http.client, json, math, os, random, re, signal, subprocess, sys, tempfile, threading, time

def start_server(binary, work):
    log = open(os.path.join(work, "serve.log"), "w+")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOTRIGGER_")}
    proc = subprocess.Popen([binary, "serve", "--database", os.path.join(work, "g.sqlite"), "--listen", "127.0.0.1:0",
                             "--sink", "ndjson:" + os.path.join(work, "out.ndjson"), "--clock", "event",
                             "--max-body-bytes", str(64 << 20), "--log-level", "notice"],
                            stderr=log, stdout=subprocess.DEVNULL, env=env)
    for _ in range(300):
        log.seek(0)
        m = re.search(r"port=(\d+).*\] listening$", log.read(), re.M)
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    log.seek(0)
    sys.exit("geotrigger serve did not start:\n" + log.read())

def request(conn, method, path, body=None, ctype="application/json"):
    conn.request(method, path, body=body, headers={"Content-Type": ctype} if body is not None else {})
    r = conn.getresponse()
    data = r.read()
    if r.status >= 300:
        raise RuntimeError(f"{method} {path}: {r.status} {data[:300]!r}")
    return data

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/geotrigger")
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--batches", type=int, default=100, help="measured batches per connection")
    ap.add_argument("--warmup", type=int, default=5, help="unmeasured batches per connection first")
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=1000, help="circle requests (radius 100-500 m)")
    ap.add_argument("--devices", type=int, default=1000, help="devices per connection")
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    # A 20 km square; regions cover a few per cent of it, devices walk up to 50 m per fix.
    lat0, lon0, span = 52.4, 13.2, 0.18
    work = tempfile.mkdtemp(prefix="geotrigger-http-bench-")
    proc, port = start_server(a.bin, work)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        reqs = [{"identifier": f"r{i}", "content": {"title": "{device} {event} {region.id}"},
                 "trigger": {"repeats": True, "region": {"type": "circle", "id": f"c{i}",
                     "center": {"latitude": lat0 + rnd.random() * span, "longitude": lon0 + rnd.random() * span * 1.6},
                     "radius": rnd.uniform(100, 500)}}} for i in range(a.requests)]
        request(conn, "POST", "/v1/requests", json.dumps(reqs))

        def make_batches(c):
            r = random.Random(a.seed * 1000 + c)
            pos = [[lat0 + r.random() * span, lon0 + r.random() * span * 1.6] for _ in range(a.devices)]
            t = 1_760_000_000.0
            out = []
            for _ in range(a.warmup + a.batches):
                lines = []
                for k in range(a.batch_size):
                    d = r.randrange(a.devices)
                    step, bearing = r.uniform(0, 50), r.uniform(0, 2 * math.pi)
                    pos[d][0] += step * math.cos(bearing) / 111_320
                    pos[d][1] += step * math.sin(bearing) / (111_320 * math.cos(math.radians(pos[d][0])))
                    t += 0.001
                    lines.append(f'{{"device":"c{c}-d{d}","timestamp":{t:.3f},"latitude":{pos[d][0]:.7f},'
                                 f'"longitude":{pos[d][1]:.7f},"horizontalAccuracy":5}}')
                out.append(("\n".join(lines) + "\n").encode())
            return out

        work_items = [make_batches(c) for c in range(a.connections)]
        latencies, accepted, errors = [], [0], []
        lock = threading.Lock()
        barrier = threading.Barrier(a.connections + 1)

        def run(c):
            cx = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            try:
                for b in work_items[c][:a.warmup]:
                    request(cx, "POST", "/v1/fixes", b, "application/x-ndjson")
                barrier.wait()
                mine, n = [], 0
                for b in work_items[c][a.warmup:]:
                    t0 = time.perf_counter()
                    body = json.loads(request(cx, "POST", "/v1/fixes", b, "application/x-ndjson"))
                    mine.append(time.perf_counter() - t0)
                    n += body["accepted"]
                with lock:
                    latencies.extend(mine)
                    accepted[0] += n
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
                barrier.abort()

        threads = [threading.Thread(target=run, args=(c,)) for c in range(a.connections)]
        for t in threads: t.start()
        barrier.wait()
        start = time.perf_counter()
        for t in threads: t.join()
        elapsed = time.perf_counter() - start
        if errors:
            sys.exit(f"bench failed: {errors[0]}")
        metrics = request(conn, "GET", "/metrics").decode()
        fired = sum(float(l.split()[-1]) for l in metrics.splitlines() if l.startswith("geotrigger_notifications_total"))
        latencies.sort()
        pct = lambda p: latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1000
        total = a.connections * a.batches * a.batch_size
        print(f"connections={a.connections} batch={a.batch_size} batches={a.connections * a.batches} fixes={total} "
              f"accepted={accepted[0]} requests={a.requests} notifications_total={int(fired)}")
        print(f"fixes/s={accepted[0] / elapsed:,.0f} elapsed_s={elapsed:.2f} "
              f"batch_latency_ms p50={pct(50):.1f} p99={pct(99):.1f} max={latencies[-1] * 1000:.1f}")
        # Where the server's time went (warm-up included), from its own histograms when it has them.
        def metric(name):
            return sum(float(l.split()[-1]) for l in metrics.splitlines() if l.startswith(name + " ") or l.startswith(name + "{"))
        parts = []
        for name in ("evaluation", "commit"):
            n = metric(f"geotrigger_{name}_seconds_count")
            if n:
                total_s = metric(f"geotrigger_{name}_seconds_sum")
                parts.append(f"{name}: {int(n)} batches {total_s:.2f} s (mean {total_s / n * 1000:.2f} ms)")
        if parts:
            print("server " + "; ".join(parts))
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        subprocess.run(["rm", "-rf", work])

if __name__ == "__main__":
    main()
