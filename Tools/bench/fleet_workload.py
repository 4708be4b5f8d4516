"""The fleet-like ingest workload shared by http_ingest.py and postgis_peer.py, so both sides (and `replay`) get the
same fixes: circle requests (radius 100-500 m) in a 20 km square, and per connection its own devices random-walking
up to 50 m per fix, in batches of NDJSON lines."""
import math, os, random, re, socket, sys, threading, time

LAT0, LON0, SPAN = 52.4, 13.2, 0.18


def regions(count, seed):
    rnd = random.Random(seed)
    return [{"identifier": f"r{i}", "content": {"title": "{device} {event} {region.id}"},
             "trigger": {"repeats": True, "region": {"type": "circle", "id": f"c{i}",
                 "center": {"latitude": LAT0 + rnd.random() * SPAN, "longitude": LON0 + rnd.random() * SPAN * 1.6},
                 "radius": rnd.uniform(100, 500)}}} for i in range(count)]


def batches(connection, count, size, devices, seed):
    """`count` batches for one connection: lists of (device, timestamp, latitude, longitude) in time order."""
    r = random.Random(seed * 1000 + connection)
    pos = [[LAT0 + r.random() * SPAN, LON0 + r.random() * SPAN * 1.6] for _ in range(devices)]
    t = 1_760_000_000.0
    out = []
    for _ in range(count):
        batch = []
        for _ in range(size):
            d = r.randrange(devices)
            step, bearing = r.uniform(0, 50), r.uniform(0, 2 * math.pi)
            pos[d][0] += step * math.cos(bearing) / 111_320
            pos[d][1] += step * math.sin(bearing) / (111_320 * math.cos(math.radians(pos[d][0])))
            t += 0.001
            batch.append((f"c{connection}-d{d}", round(t, 3), round(pos[d][0], 7), round(pos[d][1], 7)))
        out.append(batch)
    return out


def ndjson(batch):
    return ("".join(f'{{"device":"{d}","timestamp":{t:.3f},"latitude":{la:.7f},"longitude":{lo:.7f},"horizontalAccuracy":5}}\n'
                    for d, t, la, lo in batch)).encode()


def percentile(sorted_seconds, p):
    """The p-th percentile of sorted durations in seconds, in milliseconds (nearest rank)."""
    return sorted_seconds[min(len(sorted_seconds) - 1, int(p / 100 * len(sorted_seconds)))] * 1000


def run_connections(batches_per_connection, warmup, connect):
    """Runs each connection's batches on its own thread: `warmup` unmeasured, then the rest timed from one common
    start. `connect(c)` opens connection c and returns `send(batch) -> tuple of counts`. Returns (elapsed seconds,
    sorted per-batch latencies in seconds, the counts summed over the timed batches)."""
    latencies, totals, errors = [], [], []
    lock = threading.Lock()
    barrier = threading.Barrier(len(batches_per_connection) + 1)

    def worker(c, batches):
        try:
            send = connect(c)
            for b in batches[:warmup]:
                send(b)
            barrier.wait()
            mine, sums = [], []
            for b in batches[warmup:]:
                t0 = time.perf_counter()
                counts = send(b)
                mine.append(time.perf_counter() - t0)
                sums = [x + y for x, y in zip(sums, counts)] if sums else list(counts)
            with lock:
                latencies.extend(mine)
                totals[:] = [x + y for x, y in zip(totals, sums)] if totals else sums
        except Exception as e:  # noqa: BLE001 - raised below
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(c, b)) for c, b in enumerate(batches_per_connection)]
    for t in threads: t.start()
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        pass
    start = time.perf_counter()
    for t in threads: t.join()
    elapsed = time.perf_counter() - start
    if errors:
        raise RuntimeError(errors[0])
    latencies.sort()
    return elapsed, latencies, totals


class RawHTTPConnection:
    """A keep-alive HTTP/1.1 client that writes each request as one prebuilt byte string and reads the answer by
    its Content-Length: http.client builds headers and parses answers in Python (email.parser), which took much of
    a core of the same two the server runs on. Answers without Content-Length are not supported (the server
    always sends it)."""

    def __init__(self, port, timeout=120):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def request(self, method, path, body, ctype):
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {ctype}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        self.sock.sendall(head + body)
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        header, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = header.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(self.buffer) < length:
            self._fill()
        data, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, data

    def _fill(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        self.buffer += chunk


def process_cpu_seconds(pid):
    """User + system CPU seconds a process has used so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port():
    """A loopback TCP port the kernel just handed out, for a server the script starts."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(proc, log, what):
    """The port a `geotrigger serve` just started with --listen 127.0.0.1:0 logged ("listening host=H port=N …"); exits with
    its log when it ended instead."""
    for _ in range(600):
        log.seek(0)
        m = re.search(r" listening host=\S+ port=(\d+)", log.read())
        if m:
            return int(m.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    log.seek(0)
    sys.exit(f"{what} did not start:\n{log.read()[-3000:]}")
