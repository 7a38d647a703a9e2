"""What the Python workers of the peer bench share: the data formulas (the same as
benches/src/keys.rs), the CPU clock, and the command loop spoken with driver.py."""

import hashlib
import json
import sys
import time

DAYS = 100
FAMILY = b"d"
QUALIFIER = b"v"
VALUE_BYTES = 200
PAGE = 1000
MASK = (1 << 64) - 1
_LETTERS = bytes(b"abcdefghijklmnopqrstuvwxyz" * 10)


def seq(i):
    """SplitMix64 of i (keys.rs `seq`)."""
    z = (i + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def salt_width(salts):
    return len(str(max(salts - 1, 1)))


def row_key(i, salts):
    """Row i's key: salt, day, seq in decimal (keys.rs `row_key`)."""
    s = seq(i)
    return b"%0*d%02d%020d" % (salt_width(salts), s % salts, i % DAYS, s)


def salt_prefix(bucket, salts):
    return b"%0*d" % (salt_width(salts), bucket)


def row_value(i):
    """Row i's 200-byte value (keys.rs `row_value`)."""
    first = (i % 26) * 7 % 26
    return _LETTERS[first:first + VALUE_BYTES]


def cpu_seconds():
    """This process's CPU time (user + system, every thread) from /proc/self/stat."""
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def heap_merge(iterators, out):
    """The merge of seed 002 (Socorro's merge_scan_with_prefix): one entry per scanner
    in a heap, the smallest yielded, its scanner advanced with heapreplace. Each
    iterator yields (logical key, row key, row)."""
    import heapq

    queue = []
    for i, it in enumerate(iterators):
        try:
            nxt = it.__next__
            queue.append([nxt(), i, nxt])
        except StopIteration:
            pass
    heapq.heapify(queue)
    while True:
        try:
            while True:
                row_tuple, _, nxt = s = queue[0]
                out(row_tuple[1])
                s[0] = nxt()
                heapq.heapreplace(queue, s)
        except StopIteration:
            heapq.heappop(queue)
        except IndexError:
            return


def latencies_ms(latencies):
    lat = sorted(latencies)
    if not lat:
        return 0.0, 0.0
    at = lambda q: lat[min(len(lat) * q // 100, len(lat) - 1)] * 1000.0
    return at(50), at(99)


def read_gets(path, salts):
    with open(path) as f:
        return [row_key(int(line), salts) for line in f if line.strip()]


def serve(name, handlers):
    """Answers driver.py: one command per line in, one JSON line out. A handler returns
    (keys, latencies) and is timed (wall and process CPU); None for admin commands."""
    print(json.dumps({"ok": True, "ready": name}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        try:
            handler = handlers[words[0]]
            cpu0, t0 = cpu_seconds(), time.perf_counter()
            result = handler(*words[1:])
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
            if result is None:
                print(json.dumps({"ok": True}), flush=True)
                continue
            keys, latencies = result
            if callable(keys):  # written rows: their keys are made after the clock stops
                keys = keys()
            md5 = hashlib.md5()
            for key in keys:
                md5.update(key)
                md5.update(b"\n")
            p50, p99 = latencies_ms(latencies)
            answer = {"ok": True, "rows": len(keys), "wall_s": wall, "cpu_s": cpu,
                      "digest": md5.hexdigest(), "p50_ms": p50, "p99_ms": p99}
        except Exception as e:  # reported to the driver, which stops the run
            answer = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(answer), flush=True)


def threaded_gets(keys, getters):
    """One thread per getter (a function key -> returned row key, each on its own
    connection), thread k getting every k-th key; keys returned in the order asked,
    with each call's latency."""
    import threading

    tasks = len(getters)
    results = [None] * len(keys)
    latencies = [0.0] * len(keys)
    errors = []

    def run(k):
        get = getters[k]
        clock = time.perf_counter
        try:
            for i in range(k, len(keys), tasks):
                t0 = clock()
                results[i] = get(keys[i])
                latencies[i] = clock() - t0
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(tasks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results, latencies
