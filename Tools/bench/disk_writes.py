#!/usr/bin/env python3
"""Disk writes of a quiet `geotrigger-serve` (issue 44, "Quiet disks"), from the kernel's own count: `write_bytes` in
/proc/PID/io (bytes the process caused to be written to storage: its direct writes and the page-cache pages it
dirtied). BENCHMARKS.md "Disk writes".

Each phase starts its own `serve` in a fresh folder with REGIONS circles (`--regions`), posts one fix for each of
DEVICES devices, stops it (SIGTERM) and starts it again on the same files (the issue's idle figure was taken after a
restart), then measures for MINUTES:
  idle      nothing is sent;
  interval  10 fixes a second of devices that walk (`Fleet`), one per request, with `--sync interval:1s`;
  always    the same with `--sync always` (the default; a build without `--sync`, found from its --help, runs
            with no flag and skips `interval`).
The phases run side by side (each its own process and folder: `write_bytes` is per process), so the whole run
takes MINUTES plus the set-up. At the end of each: the bytes written, VmRSS, and the journal folder's size at rest.

usage: disk_writes.py PATH/TO/geotrigger-serve [--minutes 10] [--regions 10000] [--devices 1000]
                      [--phases idle,interval,always] [--work DIR] [--no-sync-flag]
"""
import argparse, http.client, json, os, random, signal, subprocess, sys, tempfile, threading, time

TARGETS = {"idle": 64 << 10, "interval": 4 << 20}  # bytes per 10 minutes (issue 44)

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("serve")
parser.add_argument("--minutes", type=float, default=10)
parser.add_argument("--regions", type=int, default=10_000)
parser.add_argument("--devices", type=int, default=1_000)
parser.add_argument("--phases", default="idle,interval,always")
parser.add_argument("--work", default=None)
parser.add_argument("--fill", type=float, default=0, metavar="MB",
                    help="before the restart, post further fixes until about MB megabytes of them are journaled: the "
                         "segment the restart reopens then ends that far in (the issue's idle figure came from such a one)")
parser.add_argument("--no-sync-flag", action="store_true", help="the build has no --sync (before issue 44): run `always` without it, skip `interval`")
options = parser.parse_args()
# A build without `--sync` (every build before issue 44's durability setting) runs as --no-sync-flag says.
help_text = subprocess.run([options.serve, "--help-all"], capture_output=True, text=True)
if "--sync" not in help_text.stdout + help_text.stderr:
    options.no_sync_flag = True
work = options.work or tempfile.mkdtemp(prefix="disk-writes-")
os.makedirs(work, exist_ok=True)
rng = random.Random(44)
CENTER = (52.52, 13.40)


def write_regions(path):
    requests = []
    for k in range(options.regions):
        lat = CENTER[0] + rng.uniform(-0.2, 0.2)
        lon = CENTER[1] + rng.uniform(-0.3, 0.3)
        requests.append({"identifier": f"r-{k}", "content": {"title": "{event} {region.id}"},
                         "trigger": {"region": {"type": "circle", "id": f"c-{k}", "center": {"latitude": lat, "longitude": lon},
                                                "radius": rng.randint(100, 500)}, "repeats": True}})
    with open(path, "w") as f:
        json.dump(requests, f)


class Serve:
    def __init__(self, folder, sync):
        self.folder, self.sync = folder, sync
        self.log_path = f"{folder}/serve.log"
        self.process = None

    def start(self):
        args = [options.serve, "--database", f"{self.folder}/g.sqlite", "--listen", "127.0.0.1:0",
                "--regions", f"{work}/regions.json"]
        if self.sync and not options.no_sync_flag:
            args += ["--sync", self.sync]
        self.log = open(self.log_path, "a")
        self.seen = sum(1 for _ in open(self.log_path))  # this start's lines come after
        self.process = subprocess.Popen(args, stderr=self.log, stdout=subprocess.DEVNULL)
        self.port = self.wait_port()
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def wait_port(self):
        for _ in range(6000):
            lines = open(self.log_path).readlines()[self.seen:]
            for line in lines:
                if "port=" in line and "listening" in line:
                    return int(line.split("port=")[1].split()[0].strip('"'))
            if self.process.poll() is not None:
                raise SystemExit(f"serve exited: {open(self.log_path).read()[-2000:]}")
            time.sleep(0.1)
        raise SystemExit("no port: " + open(self.log_path).read()[-2000:])

    def post(self, fixes):
        self.connection.request("POST", "/v1/fixes", body="\n".join(json.dumps(x) for x in fixes).encode())
        r = self.connection.getresponse()
        text = r.read()
        if r.status != 200:
            raise SystemExit(f"{r.status} {text[:300]}")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait()

    def io(self, key="write_bytes"):
        for line in open(f"/proc/{self.process.pid}/io"):
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return -1

    def rss_kib(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return -1


def journal_bytes(folder):
    """Bytes the journal folder holds on disk (allocated blocks), and the sizes of its files."""
    path = f"{folder}/g.sqlite.journal"
    allocated, files = 0, {}
    for name in sorted(os.listdir(path)):
        st = os.stat(f"{path}/{name}")
        allocated += st.st_blocks * 512
        files[name] = st.st_size
    return allocated, files


class Fleet:
    """Devices that walk: each fix is up to about 30 m from the device's last (a gateway's devices move, they do not
    jump across the city), so notifications fire where a device crosses a region's edge, not with every fix."""
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.at = {}

    def fix(self, k, t):
        lat, lon = self.at.get(k) or (CENTER[0] + self.rng.uniform(-0.2, 0.2), CENTER[1] + self.rng.uniform(-0.3, 0.3))
        lat, lon = lat + self.rng.uniform(-0.0003, 0.0003), lon + self.rng.uniform(-0.0004, 0.0004)
        self.at[k] = (lat, lon)
        return {"device": f"dev-{k:04d}", "timestamp": round(t, 3), "latitude": lat, "longitude": lon}


results = {}


def phase(name):
    folder = f"{work}/{name}"
    fleet = Fleet(seed=44)
    os.makedirs(folder, exist_ok=True)
    serve = Serve(folder, {"idle": None, "interval": "interval:1s", "always": "always"}[name])
    serve.start()
    for b in range(0, options.devices, 500):
        serve.post([fleet.fix(k, time.time()) for k in range(b, min(options.devices, b + 500))])
    filled = 0
    while filled < options.fill * 1e6:
        batch = [fleet.fix(k, time.time()) for k in range(options.devices)]
        serve.post(batch)
        filled += sum(len(json.dumps(x)) for x in batch)  # about the journaled size (the record is binary, smaller)
    serve.stop()
    serve.start()
    time.sleep(2)  # the restart's first tick and any log line of starting up
    before = serve.io()
    started = time.monotonic()
    end = started + options.minutes * 60
    sent = 0
    if name == "idle":
        time.sleep(end - time.monotonic())
    else:
        while True:
            due = started + sent / 10
            if due >= end:
                break
            if due > time.monotonic():
                time.sleep(due - time.monotonic())
            serve.post([fleet.fix(sent % options.devices, time.time())])
            sent += 1
    written = serve.io() - before
    rss = serve.rss_kib()
    allocated, files = journal_bytes(folder)
    serve.stop()
    results[name] = (written, rss, sent, allocated, files)


write_regions(f"{work}/regions.json")
phases = [p for p in options.phases.split(",") if p and not (p == "interval" and options.no_sync_flag)]
threads = [threading.Thread(target=phase, args=(p,)) for p in phases]
print(f"serve: {options.serve}; {options.regions} regions, {options.devices} devices, {options.minutes:g} min a phase, "
      f"phases {','.join(phases)} side by side; folder {work}", flush=True)
for t in threads:
    t.start()
for t in threads:
    t.join()

binaries = os.path.dirname(os.path.abspath(options.serve))
for b in ["geotrigger-serve", "geotrigger"]:
    if os.path.exists(f"{binaries}/{b}"):
        print(f"binary {b}: {os.path.getsize(binaries + '/' + b):,} bytes")
scale = 10 / options.minutes
for name in phases:
    if name not in results:
        print(f"{name}: failed (see {work}/{name}/serve.log)")
        continue
    written, rss, sent, allocated, files = results[name]
    target = TARGETS.get(name)
    verdict = ""
    if target:
        verdict = f"; target ≤ {target / 1024:,.0f} KiB per 10 min: {'met' if written * scale <= target else 'missed'}"
    print(f"{name}: write_bytes {written:,} ({written / 1024:,.1f} KiB) in {options.minutes:g} min, "
          f"{written * scale / 1024:,.1f} KiB per 10 min{verdict}; fixes sent {sent}; VmRSS {rss / 1024:.1f} MiB; "
          f"journal at rest {allocated / (1 << 20):.1f} MiB allocated ({', '.join(f'{k} {v:,}' for k, v in files.items())})")
