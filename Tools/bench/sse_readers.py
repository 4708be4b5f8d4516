#!/usr/bin/env python3
"""Event-stream delivery benchmark for `geotrigger serve` (issue 47, item 2): `GET /v1/stream` to many readers
while fixes are posted.

`geotrigger serve` on a temporary database and journal, a free loopback port and an NDJSON file sink; one circle
request (notifyOnExit) and DEVICES devices placed outside it. Then:

1. Without readers: BATCHES batches of DEVICES fixes, each moving every device across the circle's border (one
   notification per fix), posted one after another on one keep-alive connection: fixes/s accepted.
2. With READERS readers of `GET /v1/stream` (all events, one selector thread reading every socket): the same number
   of batches again. Measured from the first post until every reader has every notification of the phase: events
   delivered in total per second (READERS x notifications / seconds), and fixes/s accepted while they read.

The readers, the poster and the server share the machine's cores; the readers count `event: notification` lines
and parse nothing else.
"""
import argparse, http.client, json, os, selectors, socket, subprocess, sys, tempfile, threading, time

import fleet_workload

MARK = b"event: notification\n"


def fixes_body(devices, second, inside):
    latitude = 52.5 if inside else 53.5
    return "".join(json.dumps({"device": f"d{k}", "timestamp": 1_760_000_000 + second, "latitude": latitude,
                               "longitude": 13.4}) + "\n" for k in range(devices)).encode()


def post(conn, path, body):
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if r.status >= 300:
        sys.exit(f"POST {path}: {r.status} {data[:300]!r}")


class Readers:
    """READERS streams on one selector thread: counts notification events per reader."""

    def __init__(self, port, count):
        self.sel = selectors.DefaultSelector()
        self.counts = [0] * count
        self.tails = [b""] * count
        self.opened = [False] * count
        self.socks = []
        for i in range(count):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /v1/stream?heartbeat=300 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ, i)
            self.socks.append(s)
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            for key, _ in self.sel.select(timeout=0.1):
                i = key.data
                try:
                    data = key.fileobj.recv(1 << 20)
                except BlockingIOError:
                    continue
                if not data:
                    self.sel.unregister(key.fileobj)
                    continue
                # A mark may straddle two reads: count in the previous read's tail joined to this one.
                joined = self.tails[i] + data
                self.counts[i] += joined.count(MARK)
                if not self.opened[i] and b": stream open" in joined:
                    self.opened[i] = True
                self.tails[i] = joined[-(len(MARK) - 1):] if not joined.endswith(MARK) else b""

    def total(self):
        return sum(self.counts)

    def close(self):
        self.stop = True
        self.thread.join()
        for s in self.socks:
            s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/geotrigger-serve", help="the geotrigger-serve executable")
    ap.add_argument("--readers", type=int, default=100)
    ap.add_argument("--devices", type=int, default=1000, help="fixes per batch (one notification each)")
    ap.add_argument("--batches", type=int, default=50, help="batches per phase")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="geotrigger-sse-bench-")
    log = open(os.path.join(work, "serve.log"), "w+")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOTRIGGER_")}
    proc = subprocess.Popen([a.bin, "--database", os.path.join(work, "g.sqlite"), "--listen", "127.0.0.1:0",
                             "--sink", "ndjson:" + os.path.join(work, "out.ndjson"), "--clock", "event",
                             "--http-max-connections-per-address", "0", "--log-level", "notice"],
                            stderr=log, stdout=subprocess.DEVNULL, env=env)
    try:
        port = fleet_workload.wait_listening(proc, log, "geotrigger serve")
        conn = http.client.HTTPConnection("127.0.0.1", port)
        request = {"identifier": "zone", "content": {"title": "t"},
                   "trigger": {"type": "location", "repeats": True, "notifyOnExit": True,
                               "region": {"type": "circle", "id": "zone", "center": {"latitude": 52.5, "longitude": 13.4},
                                          "radius": 1000}}}
        post(conn, "/v1/requests", json.dumps([request]).encode())
        second = 0
        post(conn, "/v1/fixes", fixes_body(a.devices, second, False))  # placed outside: no notification

        def phase():
            nonlocal second
            t0 = time.perf_counter()
            for _ in range(a.batches):
                second += 10
                post(conn, "/v1/fixes", fixes_body(a.devices, second, second % 20 == 10))
            return time.perf_counter() - t0

        alone = phase()
        readers = Readers(port, a.readers)
        while not all(readers.opened):
            time.sleep(0.01)
        t0 = time.perf_counter()
        posting = phase()
        expected = a.readers * a.batches * a.devices
        while readers.total() < expected and proc.poll() is None:
            time.sleep(0.005)
        elapsed = time.perf_counter() - t0
        delivered = readers.total()
        readers.close()
        fixes = a.batches * a.devices
        print(f"readers {a.readers}, batches {a.batches} x {a.devices} fixes (one notification each)")
        print(f"ingest without readers: {fixes / alone:,.0f} fixes/s")
        print(f"ingest with {a.readers} readers: {fixes / posting:,.0f} fixes/s")
        print(f"delivered: {delivered:,} of {expected:,} events in {elapsed:.2f} s: {delivered / elapsed:,.0f} events/s in total "
              f"({delivered / elapsed / a.readers:,.0f} per reader)")
        if delivered != expected:
            sys.exit("not every reader got every event")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
