#!/usr/bin/env python3
"""HTTP ingest benchmark for `geotrigger serve` (issues 5 and 16), with its two comparisons from the same run.

1. `geotrigger replay` of the same fixes from an NDJSON file: the engine's speed with input parsing, no durability.
   In the order the server receives them (the connections' batches interleaved), once before serve and once after
   it: the mean of the two is the ratio's basis, so the machine's drift over the minutes between them counts on
   both sides. And in connection order (each connection's devices together, kinder to the caches; printed for
   comparison).
2. `geotrigger serve` on a temporary database and journal, a free loopback port and an NDJSON file sink: circle
   requests, then NDJSON batches of fixes posted from N concurrent keep-alive connections (each connection owns its
   devices, so per-device order holds). The server answers a batch only once its journal record (the fixes and the
   notifications they fired) is fsync'd, so a batch's send-to-answer time is, for each of its fixes, the time from
   arrival to durable acknowledgement. Reported: fixes/s over the measured phase, p50/p99, and the ratio to (1).
3. With --postgis: the same batches into PostgreSQL 15 + PostGIS 3 (postgis_peer.py), the peer a fleet integrator
   builds instead; reported beside GeoTrigger with the ratio.

Run with Debian's /usr/bin/python3 (psycopg2 comes from python3-psycopg2).
"""
import argparse, http.client, json, os, re, resource, signal, socket, subprocess, sys, tempfile, time

import fleet_workload

def replay(binary, work, requests, work_items, order, keep=False):
    """Runs `geotrigger replay` on the same fixes; returns (its own fixes/s, wall seconds, fixes); with keep, the
    trace stays for `replay_again`.

    order "connection": each connection's batches in turn (its 2,500 devices at a time: the engine's caches hold
    them). order "arrival": batch k of every connection, then batch k+1 (how the server receives them from its
    connections running side by side, all 10,000 devices interleaved)."""
    regions = os.path.join(work, "regions.json")
    with open(regions, "w") as f:
        json.dump(requests, f)
    trace = os.path.join(work, f"fixes-{order}.ndjson")
    n = 0
    if order == "connection":
        sequence = [b for batches in work_items for b in batches]
    else:
        sequence = [batches[k] for k in range(max(len(w) for w in work_items)) for batches in work_items if k < len(batches)]
    with open(trace, "wb") as f:
        for b in sequence:
            f.write(fleet_workload.ndjson(b))
            n += len(b)
    rate, wall, _ = replay_again(binary, work, order)
    if not keep:
        os.unlink(trace)
    return rate, wall, n


def replay_again(binary, work, order):
    """Replays the trace `replay` wrote for `order`; returns (its own fixes/s, wall seconds, CPU seconds). Replay is
    not one thread (its input pipeline decodes beside the engine: 170-185 % CPU here), so its CPU is measured, not
    taken from its rate."""
    regions = os.path.join(work, "regions.json")
    trace = os.path.join(work, f"fixes-{order}.ndjson")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([binary, "replay", regions, trace, "--format", "ndjson", "--output", "/dev/null"],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = re.search(r"throughput\s+([0-9.]+) fixes/s", r.stderr + r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"replay failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return float(m.group(1)), wall, cpu


def start_server(binary, work, extra=()):
    log = open(os.path.join(work, "serve.log"), "w+")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOTRIGGER_")}
    proc = subprocess.Popen([binary, "serve", "--database", os.path.join(work, "g.sqlite"), "--listen", "127.0.0.1:0",
                             "--sink", "ndjson:" + os.path.join(work, "out.ndjson"), "--clock", "event",
                             "--max-body-bytes", str(64 << 20), "--log-level", "notice", *extra],
                            stderr=log, stdout=subprocess.DEVNULL, env=env)
    try:
        return proc, fleet_workload.wait_listening(proc, log, "geotrigger serve")
    except SystemExit:
        proc.kill()
        raise

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
    ap.add_argument("--devices", type=int, default=2500, help="devices per connection (4 × 2,500 = 10,000)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--serve-arg", action="append", default=[], help="one more argument for serve (repeat), e.g. --serve-arg=--explain-depth=0")
    ap.add_argument("--postgis", action="store_true", help="also run the PostgreSQL + PostGIS peer on the same batches")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="geotrigger-http-bench-")
    reqs = fleet_workload.regions(a.requests, a.seed)
    work_items = [fleet_workload.batches(c, a.warmup + a.batches, a.batch_size, a.devices, a.seed) for c in range(a.connections)]
    # Replay runs before serve and again after it, and the ratio's basis is the mean of the two: this machine's speed
    # drifts by up to 1.5x over minutes (replay alone measured 1.0-2.4M fixes/s within one hour), and a single
    # replay a minute before serve made the ratio move with that drift. Both figures and both ratios are printed.
    replay_before, replay_wall, replay_fixes = replay(a.bin, work, reqs, work_items, "arrival", keep=True)
    connection_rate, connection_wall, _ = replay(a.bin, work, reqs, work_items, "connection")
    bodies = [[fleet_workload.ndjson(b) for b in batches] for batches in work_items]
    proc, port = start_server(a.bin, work, a.serve_arg)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        request(conn, "POST", "/v1/requests", json.dumps(reqs))
        def connect(c):
            cx = fleet_workload.RawHTTPConnection(port)
            def send(body):
                status, data = cx.request("POST", "/v1/fixes", body, "application/x-ndjson")
                if status >= 300:
                    raise RuntimeError(f"POST /v1/fixes: {status} {data[:300]!r}")
                return (json.loads(data)["accepted"],)
            return send

        client_before, server_before = os.times(), fleet_workload.process_cpu_seconds(proc.pid)
        try:
            elapsed, latencies, (accepted,) = fleet_workload.run_connections(bodies, a.warmup, connect)
        except RuntimeError as e:
            sys.exit(f"bench failed: {e}")
        client_after, server_after = os.times(), fleet_workload.process_cpu_seconds(proc.pid)
        client_cpu = (client_after.user - client_before.user) + (client_after.system - client_before.system)
        server_cpu = server_after - server_before
        metrics = request(conn, "GET", "/metrics").decode()
        # The server stops before the second replay, so nothing of it competes (its checkpoint on shutdown included).
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
        replay_after, replay_after_wall, replay_after_cpu = replay_again(a.bin, work, "arrival")
        os.unlink(os.path.join(work, "fixes-arrival.ndjson"))
        replay_rate = (replay_before + replay_after) / 2
        fired = sum(float(l.split()[-1]) for l in metrics.splitlines() if l.startswith("geotrigger_notifications_total"))
        pct = lambda p: fleet_workload.percentile(latencies, p)
        total = a.connections * a.batches * a.batch_size
        print(f"connections={a.connections} batch={a.batch_size} batches={a.connections * a.batches} fixes={total} "
              f"accepted={accepted} requests={a.requests} notifications_total={int(fired)}")
        rate = accepted / elapsed
        print(f"replay (same fixes, NDJSON file, in arrival order): {replay_rate:,.0f} fixes/s engine loop, the mean of "
              f"{replay_before:,.0f} before serve and {replay_after:,.0f} after; {replay_fixes / replay_wall:,.0f} and "
              f"{replay_fixes / replay_after_wall:,.0f} fixes/s process start to exit ({replay_fixes} fixes)")
        print(f"replay (same fixes, in connection order): {connection_rate:,.0f} fixes/s engine loop; "
              f"{replay_fixes / connection_wall:,.0f} fixes/s process start to exit")
        print(f"serve HTTP ingest: fixes/s={rate:,.0f} elapsed_s={elapsed:.2f} "
              f"ack_latency_ms (arrival to durable acknowledgement, per batch) p50={pct(50):.1f} p99={pct(99):.1f} "
              f"max={latencies[-1] * 1000:.1f}")
        print(f"ratio serve/replay = {rate / replay_rate:.2f} (arrival order; {rate / replay_before:.2f} against the replay "
              f"before serve, {rate / replay_after:.2f} after); {rate / connection_rate:.2f} (connection order)")
        print(f"cpu (warm-up included): server {server_cpu:.2f} s, client {client_cpu:.2f} s over {elapsed:.2f} s on "
              f"{os.cpu_count()} cores; server {server_cpu / (accepted + a.connections * a.warmup * a.batch_size) * 1e6:.2f} "
              f"cpu-us per fix, replay {replay_after_cpu / replay_fixes * 1e6:.2f} (the whole process, after serve; "
              f"{1e6 / replay_rate:.2f} us of its engine loop's wall time per fix)")
        # Where the server's time went (warm-up included), from its own histograms when it has them.
        def metric(name):
            return sum(float(l.split()[-1]) for l in metrics.splitlines() if l.startswith(name + " ") or l.startswith(name + "{"))
        parts = []
        for name in ("evaluation", "journal_durable"):
            n = metric(f"geotrigger_{name}_seconds_count")
            if n:
                total_s = metric(f"geotrigger_{name}_seconds_sum")
                parts.append(f"{name}: {int(n)} batches {total_s:.2f} s (mean {total_s / n * 1000:.2f} ms)")
        if parts:
            print("server " + "; ".join(parts))
        journal = metric("geotrigger_journal_bytes_total")
        if journal:
            print(f"journal: {journal / 1e6:.1f} MB for {total + a.connections * a.warmup * a.batch_size} fixes "
                  f"({journal / (total + a.connections * a.warmup * a.batch_size):.0f} bytes per fix)")
        if a.postgis:
            import postgis_peer
            p = postgis_peer.run(reqs, work_items, a.warmup, fleet_workload.free_port())
            print(f"postgis peer (PostgreSQL 15 + PostGIS 3, same batches and connections): fixes/s={p['rate']:,.0f} "
                  f"entries={p['entries']} exits={p['exits']} batch_latency_ms p50={p['p50']:.1f} p99={p['p99']:.1f}")
            print(f"ratio GeoTrigger/PostGIS = {rate / p['rate']:.2f}")
            print("per fix: GeoTrigger parses NDJSON, rejects late/duplicate fixes, evaluates circles with an accuracy band "
                  "and dwell/hysteresis rules, renders each notification (JSON, deliveryId) and journals the fix with it "
                  "before answering; PostGIS stores the fix row, finds containing circles by GiST + ST_DWithin, and writes "
                  "entry/exit rows (no rendering, no accuracy band, no late/duplicate checks)")
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        subprocess.run(["rm", "-rf", work])

if __name__ == "__main__":
    main()
