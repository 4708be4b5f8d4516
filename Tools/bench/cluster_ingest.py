#!/usr/bin/env python3
"""Scale-out benchmark (issue 15): `geotrigger serve --journal nats://…` with 1, 2 and 3 instances over a real 3-node
JetStream cluster (Debian's nats-server, started here on loopback with its own configs and stores, a fresh cluster
for each instance count).

The workload is http_ingest.py's (fleet_workload: circle requests, devices random-walking, NDJSON batches, each
connection owning its devices). Batches go round-robin to the instances; a batch is answered once JetStream stored
every partition's part (R3: a quorum). Reported per instance count:
  - fixes/s acknowledged over the measured phase, and per instance (this machine has 2 cores for everything: the
    servers, the instances and this client share them, so it is an efficiency, not a speed-up);
  - acknowledgement latency p50/p99 (send to answer of a batch);
  - notification latency p50/p99: from sending the batch with the firing fix to the notification arriving on a core
    NATS subscription of the notification subjects (evaluated by the partition's owner and published);
  - CPU seconds per 1,000 fixes in the instances and in the NATS servers, from /proc.
Needs nats-py (pip) for the subscriber.
"""
import argparse, asyncio, json, os, re, signal, socket, subprocess, sys, tempfile, threading, time

import fleet_workload


def start_cluster(work):
    ports = [(fleet_workload.free_port(), fleet_workload.free_port()) for _ in range(3)]
    procs = []
    for k, (client, route) in enumerate(ports):
        routes = ", ".join(f"nats-route://127.0.0.1:{r}" for j, (_, r) in enumerate(ports) if j != k)
        conf = os.path.join(work, f"n{k}.conf")
        with open(conf, "w") as f:
            f.write(f'server_name: n{k}\nlisten: 127.0.0.1:{client}\njetstream {{ store_dir: "{work}/n{k}" }}\n'
                    f"cluster {{ name: bench\n listen: 127.0.0.1:{route}\n routes: [{routes}] }}\n")
        procs.append(subprocess.Popen(["nats-server", "-c", conf], stdout=subprocess.DEVNULL,
                                      stderr=open(os.path.join(work, f"n{k}.log"), "w")))
    # Each server listens before an instance is started: an instance that finds none refuses to start.
    for client, _ in ports:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", client), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit(f"nats-server on port {client} did not start (logs in {work})")
    return procs, [f"127.0.0.1:{c}" for c, _ in ports]


def start_instance(binary, work, name, journal, partitions):
    log = open(os.path.join(work, f"{name}.log"), "w+")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOTRIGGER_")}
    proc = subprocess.Popen([binary, "serve", "--journal", journal, "--instance", name, "--listen", "127.0.0.1:0",
                             "--partitions", str(partitions), "--replicas", "3", "--checkpoint-interval", "5",
                             "--clock", "event", "--max-body-bytes", str(64 << 20), "--log-level", "notice"],
                            stderr=log, stdout=subprocess.DEVNULL, env=env)
    return proc, fleet_workload.wait_listening(proc, log, f"instance {name}")


def get(port, path):
    c = fleet_workload.RawHTTPConnection(port)
    status, body = c.request("GET", path, b"", "application/json")
    return status, body


class Subscriber(threading.Thread):
    """Core NATS subscription of every notification subject; records each notification's arrival time by key."""

    def __init__(self, servers):
        super().__init__(daemon=True)
        self.servers, self.arrivals, self.ready, self.stop_flag = servers, {}, threading.Event(), False

    def run(self):
        asyncio.run(self.main())

    async def main(self):
        import nats
        nc = await nats.connect([f"nats://{s}" for s in self.servers])

        async def handler(msg):
            # A message holds the notifications one input fired, a line each.
            now = time.perf_counter()
            for line in msg.data.splitlines():
                n = json.loads(line)
                t = float(n["deliveryId"].rsplit("/", 1)[1].split("-")[1])
                self.arrivals.setdefault((n["device"], round(t, 3)), now)

        await nc.subscribe("geotrigger.notifications.*", cb=handler)
        await nc.flush()
        self.ready.set()
        while not self.stop_flag:
            await asyncio.sleep(0.05)
        await nc.drain()


def run(binary, instances, args, requests, work_items):
    work = tempfile.mkdtemp(prefix=f"gt-cluster-{instances}-")
    cluster, servers = start_cluster(work)
    procs = []
    try:
        journal = "nats://" + ",".join(servers)
        ports = []
        for k in range(instances):
            p, port = start_instance(binary, work, f"b{k}", journal, args.partitions)
            procs.append(p)
            ports.append(port)
        # Every partition owned, each instance its share.
        deadline = time.time() + 60
        while time.time() < deadline:
            owned = [json.loads(get(p, "/v1/cluster")[1])["owned"] for p in ports]
            share = -(-args.partitions // instances)
            if sorted(sum(owned, [])) == list(range(args.partitions)) and all(share - 1 <= len(o) <= share for o in owned):
                break
            time.sleep(0.3)
        else:
            sys.exit(f"partitions not balanced over {instances} instances: {owned}")
        c = fleet_workload.RawHTTPConnection(ports[0])
        status, body = c.request("POST", "/v1/requests", json.dumps(requests).encode(), "application/json")
        if status != 200:
            sys.exit(f"requests refused: {status} {body[:300]}")
        deadline = time.time() + 30
        while time.time() < deadline and not all(b'"requestsSequence":1' in get(p, "/v1/cluster")[1] for p in ports):
            time.sleep(0.1)
        subscriber = Subscriber(servers)
        subscriber.start()
        subscriber.ready.wait(30)
        sent = {}  # (device, timestamp) -> send time of its batch
        lock = threading.Lock()

        def connect(k):
            conn = fleet_workload.RawHTTPConnection(ports[k % instances])

            def send(batch):
                t0 = time.perf_counter()
                with lock:
                    for d, t, _, _ in batch:
                        sent[(d, t)] = t0
                while True:
                    status, body = conn.request("POST", "/v1/fixes", fleet_workload.ndjson(batch), "application/x-ndjson")
                    if status == 200:
                        return (len(batch),)
                    if status != 503:
                        raise RuntimeError(f"{status} {body[:300]}")
                    time.sleep(0.1)
            return send

        cpu = lambda ps: sum(fleet_workload.process_cpu_seconds(p.pid) for p in ps)
        cpu_instances, cpu_nats = cpu(procs), cpu(cluster)
        elapsed, latencies, totals = fleet_workload.run_connections(work_items, args.warmup, connect)
        cpu_instances, cpu_nats = cpu(procs) - cpu_instances, cpu(cluster) - cpu_nats
        fixes = totals[0]
        # Wait until no notification arrives for 3 s: everything evaluated.
        last, quiet = -1, time.time()
        while time.time() - quiet < 3:
            n = len(subscriber.arrivals)
            if n != last:
                last, quiet = n, time.time()
            time.sleep(0.2)
        subscriber.stop_flag = True
        subscriber.join(10)
        delays = sorted(a - sent[k] for k, a in subscriber.arrivals.items() if k in sent)
        return {
            "instances": instances, "fixes": fixes, "seconds": elapsed, "rate": fixes / elapsed,
            "ack_p50": fleet_workload.percentile(latencies, 50), "ack_p99": fleet_workload.percentile(latencies, 99),
            "notifications": len(delays),
            "note_p50": fleet_workload.percentile(delays, 50) if delays else float("nan"),
            "note_p99": fleet_workload.percentile(delays, 99) if delays else float("nan"),
            "cpu_instances_ms_per_1k": 1e6 * cpu_instances / fixes, "cpu_nats_ms_per_1k": 1e6 * cpu_nats / fixes,
        }
    finally:
        for p in procs + cluster:
            p.send_signal(signal.SIGKILL)
            p.wait()


def run_embedded(binary, args, requests, work_items):
    """The same batches, connections and requests against one embedded `serve` (journal and SQLite on this disk, no
    replication): the rate a deployment is compared with."""
    import http_ingest
    work = tempfile.mkdtemp(prefix="gt-embedded-")
    proc, port = http_ingest.start_server(binary, work)
    try:
        c = fleet_workload.RawHTTPConnection(port)
        status, body = c.request("POST", "/v1/requests", json.dumps(requests).encode(), "application/json")
        if status != 200:
            sys.exit(f"requests refused: {status} {body[:300]}")

        def connect(k):
            conn = fleet_workload.RawHTTPConnection(port)

            def send(batch):
                status, body = conn.request("POST", "/v1/fixes", fleet_workload.ndjson(batch), "application/x-ndjson")
                if status != 200:
                    raise RuntimeError(f"{status} {body[:300]}")
                return (len(batch),)
            return send

        before = fleet_workload.process_cpu_seconds(proc.pid)
        elapsed, latencies, totals = fleet_workload.run_connections(work_items, args.warmup, connect)
        cpu = fleet_workload.process_cpu_seconds(proc.pid) - before
        fixes = totals[0]
        return {"rate": fixes / elapsed, "ack_p50": fleet_workload.percentile(latencies, 50),
                "ack_p99": fleet_workload.percentile(latencies, 99), "cpu_ms_per_1k": 1e6 * cpu / fixes}
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary", help="the geotrigger executable (release build)")
    ap.add_argument("--connections", type=int, default=6)
    ap.add_argument("--batches", type=int, default=40, help="measured batches per connection")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--devices", type=int, default=1700, help="per connection")
    ap.add_argument("--regions", type=int, default=1000)
    ap.add_argument("--instances", default="1,2,3")
    ap.add_argument("--partitions", type=int, default=12)
    ap.add_argument("--no-embedded", action="store_true", help="skip the embedded `serve` run of the same batches")
    args = ap.parse_args()
    requests = fleet_workload.regions(args.regions, 16)
    work_items = [fleet_workload.batches(c, args.warmup + args.batches, args.batch, args.devices, 16)
                  for c in range(args.connections)]
    print(f"cluster ingest: {args.connections} connections x {args.batches} batches of {args.batch} fixes "
          f"({args.connections * args.devices} devices, {args.regions} circles), 3-node JetStream R3, {args.partitions} partitions")
    print(f"{'instances':>9} {'fixes/s':>9} {'per inst':>9} {'ack p50':>8} {'ack p99':>8} {'notes':>7} "
          f"{'note p50':>9} {'note p99':>9} {'cpu gt':>8} {'cpu nats':>9}  (latencies ms; cpu ms per 1,000 fixes)")
    embedded = None if args.no_embedded else run_embedded(args.binary, args, requests, work_items)
    if embedded:
        print(f"{'embedded':>9} {embedded['rate']:>9.0f} {embedded['rate']:>9.0f} {embedded['ack_p50']:>8.1f} "
              f"{embedded['ack_p99']:>8.1f} {'':>7} {'':>9} {'':>9} {embedded['cpu_ms_per_1k']:>8.1f} {'-':>9}  "
              f"(one `serve`, journal on this disk, the same batches)", flush=True)
    for n in [int(x) for x in args.instances.split(",")]:
        r = run(args.binary, n, args, requests, work_items)
        ratio = f"  {r['rate'] / embedded['rate']:.2f}x embedded" if embedded else ""
        print(f"{n:>9} {r['rate']:>9.0f} {r['rate'] / n:>9.0f} {r['ack_p50']:>8.1f} {r['ack_p99']:>8.1f} "
              f"{r['notifications']:>7} {r['note_p50']:>9.1f} {r['note_p99']:>9.1f} "
              f"{r['cpu_instances_ms_per_1k']:>8.1f} {r['cpu_nats_ms_per_1k']:>9.1f}{ratio}", flush=True)


if __name__ == "__main__":
    main()
