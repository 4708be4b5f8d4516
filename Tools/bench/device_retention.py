#!/usr/bin/env python3
"""Resident memory and checkpoint size of `geotrigger-serve --clock event` holding 1M distinct devices (one fix
each, all at T0), then once the watermark has passed their `--device-retention` (two further devices' fixes at
T0 + 300 s move it). Without a retention the second figures show the devices kept. BENCHMARKS.md "Device
retention".

usage: device_retention.py PATH/TO/geotrigger-serve WORKDIR [RETENTION_SECONDS]   (120 in BENCHMARKS.md)
"""
import glob, http.client, json, os, random, signal, subprocess, sys, time

serve, work = sys.argv[1], sys.argv[2]
retention = sys.argv[3] if len(sys.argv) > 3 else None
os.makedirs(work, exist_ok=True)
args = [serve, "--database", f"{work}/g.sqlite", "--listen", "127.0.0.1:0", "--checkpoint-interval", "2", "--clock", "event"]
if retention:
    args += ["--device-retention", retention]
log = open(f"{work}/serve.log", "w")
p = subprocess.Popen(args, stderr=log, stdout=subprocess.DEVNULL)

def port():
    for _ in range(1200):
        for line in open(f"{work}/serve.log"):
            if "port=" in line and "listening" in line:
                return int(line.split("port=")[1].split()[0].strip('"'))
        time.sleep(0.1)
    raise SystemExit("no port: " + open(f"{work}/serve.log").read())

def rss():
    for line in open(f"/proc/{p.pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return -1

def newest_checkpoint():
    files = glob.glob(f"{work}/g.sqlite.journal/*.checkpoint")
    newest = max(files, key=os.path.getmtime)
    return os.path.basename(newest), os.path.getsize(newest)

def written():
    return sum(1 for line in open(f"{work}/serve.log") if "checkpoint written" in line)

def wait_for_checkpoint(n):
    while written() == n:
        time.sleep(0.5)
    time.sleep(1)

P = port()
conn = http.client.HTTPConnection("127.0.0.1", P, timeout=600)
def post(lines):
    conn.request("POST", "/v1/fixes", body="\n".join(json.dumps(x) for x in lines).encode())
    r = conn.getresponse()
    text = r.read()
    if r.status != 200 or b'"rejected":0' not in text:
        raise SystemExit(f"{r.status} {text[:300]}")

T0 = 1_795_000_000
print("rss_mib_start", rss(), flush=True)
rng = random.Random(42)
N, B = 1_000_000, 20_000
started = time.time()
for b in range(0, N, B):
    post([{"device": f"dev-{k:07d}", "timestamp": T0, "latitude": 52.0 + rng.random(), "longitude": 13.0 + rng.random()}
          for k in range(b, b + B)])
print("posted", N, "in_s", round(time.time() - started, 1), flush=True)
wait_for_checkpoint(0)
print("holding_1M rss_mib", rss(), "checkpoint", newest_checkpoint(), flush=True)
n = written()
# Two devices 300 s later: the watermark (second-newest device time) passes the others' retention.
post([{"device": f"mover-{k}", "timestamp": T0 + 300, "latitude": 52.5, "longitude": 13.5} for k in range(2)])
wait_for_checkpoint(n)
time.sleep(2)
print("after_clock rss_mib", rss(), "checkpoint", newest_checkpoint(), flush=True)
conn.request("GET", "/v1/devices?limit=5")
print("devices_listing", conn.getresponse().read()[:200], flush=True)
p.send_signal(signal.SIGTERM)
p.wait()
print("exit", p.returncode, flush=True)
