"""The peer bench's driver (started by benches/run.sh, which builds everything and
starts HBase): runs the same workloads, on the same freshly loaded data, through
Basalt and the clients its users would otherwise pick, in interleaved rounds, checks
that every client returned the same keys in the same order, and writes the figures as
a markdown table and JSON.

Every client is a long-lived worker process speaking one command per line on stdin
and one JSON answer per line on stdout (see python/common.py); each worker times its
own work and reads its own process CPU time from /proc/self/stat.
"""

import argparse
import glob
import json
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))

import report  # noqa: E402

ALL_CLIENTS = ["basalt", "basalt-native", "happybase", "thriftpy2", "java"]
PEERS = ALL_CLIENTS[1:]
BASELINE = None  # "basalt@REV" with --baseline-worker, placed after basalt-native
READS = ["scan", "scan_ahead", "merged", "prefix", "gets"]
WORKLOADS = ["write"] + READS + ["gets_cold", "floor", "memory"]
CLIENTS = ALL_CLIENTS  # narrowed by --peers in main()


def server_processes(hbase_dir):
    """The JVMs serving the bench, by the launcher's pid files: the standalone HBase
    (master and region server in one JVM), each extra region server process (`rs-NAME`),
    the Thrift2 gateway and each extra gateway.
    Each pid file names a process-group leader; its whole group is counted."""
    found = {}
    patterns = (("hbase", "master.pid"), ("thrift2", "thrift.pid"), ("gateway", "gateway-*.pid"),
                ("rs", "rs-*.pid"))
    for name, pattern in patterns:
        for path in sorted(glob.glob(os.path.join(hbase_dir, pattern))):
            label = {"gateway": os.path.basename(path)[len("gateway-"):-len(".pid")],
                     "rs": os.path.basename(path)[:-len(".pid")]}.get(name, name)
            try:
                with open(path) as f:
                    found[label] = int(f.read().strip())
            except (OSError, ValueError):
                pass
    return found


def group_cpu_seconds(pgid):
    """User + system CPU seconds of every live process in process group `pgid`."""
    total = 0
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def servers_cpu(servers):
    return {name: group_cpu_seconds(pgid) for name, pgid in servers.items()}


def names(value, allowed, what):
    """A comma-separated subset of `allowed`, in `allowed`'s order ("all": every one)."""
    if value in ("all", None):
        return list(allowed)
    wanted = [x.strip() for x in value.split(",") if x.strip()]
    unknown = [x for x in wanted if x not in allowed]
    if unknown:
        raise SystemExit("unknown %s %s; choose from %s" % (what, ", ".join(unknown), ", ".join(allowed)))
    return [x for x in allowed if x in wanted]


class Worker:
    """One client process."""

    def __init__(self, name, argv, log_dir, env=None):
        self.name = name
        self.log = open(os.path.join(log_dir, "%s.log" % name), "ab")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     env=env, bufsize=1, text=True)
        LIVE.append(self.proc)
        ready = self._answer()
        if not ready.get("ok"):
            raise RuntimeError("%s did not start: %s" % (name, ready))

    def _answer(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("%s exited (code %s); see its log %s" % (self.name, self.proc.poll(), self.log.name))
        return json.loads(line)

    def call(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = self._answer()
        if not answer.get("ok"):
            raise RuntimeError("%s: %r failed: %s" % (self.name, command, answer.get("error")))
        return answer

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except Exception:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=500_000)
    p.add_argument("--salts", type=int, default=16)
    p.add_argument("--region-servers", type=int, default=1,
                   help="region servers HBase runs (run.sh starts them; recorded for the report)")
    p.add_argument("--gets", type=int, default=20_000, help="random gets per warm round")
    p.add_argument("--cold-gets", type=int, default=20_000, help="gets by a freshly started client")
    p.add_argument("--tasks", type=int, default=16, help="concurrent get tasks/threads")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the read workloads")
    p.add_argument("--write-rounds", type=int, default=1, help="rounds of the writes (a new table each)")
    p.add_argument("--prefix-day", type=int, default=42, help="the day (1%% of rows) of the prefix query")
    p.add_argument("--prefix-repeat", type=int, default=20,
                   help="prefix queries per client per round: one takes ~1-2 CPU ticks (10 ms), so its CPU per "
                        "row is the sum over every query (default 20)")
    p.add_argument("--memory-rows", default="1000000,4000000",
                   help="sizes for bench_salted's merged-scan peak memory; empty to skip")
    p.add_argument("--thrift2", required=True)
    p.add_argument("--thrift1", required=True)
    p.add_argument("--hbase-conf", required=True)
    p.add_argument("--classpath", required=True, help="file holding HBase's classpath")
    p.add_argument("--java-classes", required=True)
    p.add_argument("--worker", required=True, help="the basalt worker binary")
    p.add_argument("--bench-salted", required=True, help="the bench_salted example binary")
    p.add_argument("--idl", required=True)
    p.add_argument("--out", required=True, help="directory for latest.md and latest.json")
    p.add_argument("--logs", required=True, help="directory for the workers' logs")
    p.add_argument("--hbase-dir", help="the launcher's run directory (pid files), for the servers' CPU")
    p.add_argument("--only", default="all",
                   help="comma-separated workloads to run: %s (default all)" % ",".join(WORKLOADS))
    p.add_argument("--peers", default="all",
                   help="comma-separated peers beside Basalt: %s, or none (default all)" % ",".join(PEERS))
    p.add_argument("--native-servers", help="region servers (host:port,...) basalt-native bootstraps from")
    p.add_argument("--baseline-worker", help="the basalt worker as built from another revision")
    p.add_argument("--baseline-label", default="basalt@baseline", help="its column's name, e.g. basalt@e45d662")
    p.add_argument("--baseline-rev", help="(run.sh's option; the label names the revision)")
    p.add_argument("--baseline-native", action="store_true",
                   help="run the baseline worker over the native RPC too (column basalt-native@REV, compared "
                        "with basalt-native); needs basalt-native among the peers")
    p.add_argument("--profile-client", default="basalt",
                   help="which Basalt worker --profile records: basalt, basalt-native or the baseline's label")
    p.add_argument("--profile", metavar="DIR",
                   help="after the timed rounds, run each selected workload once more through Basalt under "
                        "perf record (call graphs) and write DIR/<workload>.perf.data and a report")
    p.add_argument("--perf-freq", type=int, default=999, help="perf record's sampling frequency (Hz)")
    return p.parse_args()


def start(name, args):
    here = os.path.dirname(os.path.abspath(__file__))
    py = os.path.join(here, "python")
    if name == "basalt":
        argv = [args.worker, "--addr", args.thrift2, "--salts", str(args.salts)]
    elif name == "basalt-native":
        if not args.native_servers:
            raise SystemExit("basalt-native needs --native-servers (run.sh finds them)")
        argv = [args.worker, "--addr", args.thrift2, "--salts", str(args.salts), "--native", args.native_servers]
    elif name == BASELINE:
        argv = [args.baseline_worker, "--addr", args.thrift2, "--salts", str(args.salts)]
        if args.baseline_native:
            argv += ["--native", args.native_servers]
    elif name == "happybase":
        argv = [sys.executable, os.path.join(py, "happybase_worker.py"), args.thrift1, str(args.salts)]
    elif name == "thriftpy2":
        argv = [sys.executable, os.path.join(py, "thrift2_worker.py"), args.thrift2, str(args.salts), args.idl]
    else:
        with open(args.classpath) as f:
            cp = f.read().strip()
        argv = ["java", "-cp", "%s:%s:%s" % (args.hbase_conf, args.java_classes, cp), "JavaWorker", str(args.salts)]
    return Worker(name, argv, args.logs)


def write_gets_file(path, count, rows, seed):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(count):
            f.write("%d\n" % rng.randrange(rows))


def log(msg):
    load = os.getloadavg()[0]
    print("[%s load %.1f] %s" % (time.strftime("%H:%M:%S"), load, msg), file=sys.stderr, flush=True)


def profile(worker, command, path, freq):
    """Runs one command through `worker` under `perf record -g` and writes a flat report
    of the symbols with the most samples (self time) beside the data. The release
    binary has no frame pointers, so call chains are short; the self shares are exact.
    BASALT_BENCH_CALL_GRAPH=dwarf unwinds with DWARF instead (whole chains, through libc's
    allocator too; larger files: use a lower --perf-freq)."""
    call_graph = os.environ.get("BASALT_BENCH_CALL_GRAPH")
    graph = ["--call-graph", call_graph] if call_graph else ["-g"]
    perf = subprocess.Popen(["perf", "record", "-F", str(freq)] + graph + ["-o", path, "-p", str(worker.proc.pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    LIVE.append(perf)
    time.sleep(1.0)  # perf attaches
    try:
        answer = worker.call(command)
    finally:
        perf.send_signal(signal.SIGINT)
        perf.wait(timeout=120)
    with open(path + ".txt", "w") as f:
        subprocess.run(["perf", "report", "-i", path, "--stdio", "--no-children", "--sort", "symbol",
                        "--percent-limit", "0.7", "-g", "none"], stdout=f, stderr=subprocess.DEVNULL, check=False)
    with open(path + ".dso.txt", "w") as f:
        subprocess.run(["perf", "report", "-i", path, "--stdio", "--no-children", "--sort", "dso,comm",
                        "-g", "none"], stdout=f, stderr=subprocess.DEVNULL, check=False)
    return answer


LIVE = []  # every worker process started, for the signal handler


def stop_on_signal(signum, _frame):
    """A killed run leaves nothing: every worker (and perf) is killed by pid, then exit."""
    for proc in LIVE:
        if proc.poll() is None:
            proc.kill()
    for proc in LIVE:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    log("stopped by signal %d; every worker killed" % signum)
    os._exit(128 + signum)


def main():
    global CLIENTS, BASELINE
    args = parse_args()
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGINT, stop_on_signal)
    only = names(args.only, WORKLOADS, "workload")
    peers = [] if args.peers == "none" else names(args.peers, PEERS, "peer")
    if args.baseline_worker:
        BASELINE = args.baseline_label
        if args.baseline_native:
            if "basalt-native" not in peers or not args.native_servers:
                raise SystemExit("--baseline-native needs basalt-native among the peers")
            BASELINE = BASELINE.replace("basalt@", "basalt-native@", 1)
        peers.insert(1 if peers[:1] == ["basalt-native"] else 0, BASELINE)
    CLIENTS = ["basalt"] + peers
    if args.profile and args.profile_client not in CLIENTS:
        raise SystemExit("--profile-client %s is not among the clients %s" % (args.profile_client, CLIENTS))
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.logs, exist_ok=True)
    servers = server_processes(args.hbase_dir) if args.hbase_dir else {}
    tag = "peer%d" % os.getpid()
    data, warm = tag + "_data", tag + "_warm"
    keys = ("rows", "salts", "gets", "cold_gets", "tasks", "rounds", "write_rounds", "prefix_day", "prefix_repeat",
            "region_servers")
    results = {"config": dict({k: getattr(args, k) for k in keys}, only=only, clients=CLIENTS,
                              baseline=BASELINE),
               "runs": [], "digests": {}, "memory": None, "phases": [], "servers": sorted(servers),
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    warm_gets = os.path.join(args.logs, "gets-warmup.txt")
    gets_file = os.path.join(args.logs, "gets.txt")
    cold_file = os.path.join(args.logs, "gets-cold.txt")
    warm_rows = min(args.rows, 10_000)
    write_gets_file(warm_gets, 2_000, warm_rows, 7)
    write_gets_file(gets_file, args.gets, args.rows, 42)
    write_gets_file(cold_file, args.cold_gets, args.rows, 1234)

    phase_started = {}

    def phase(name, end=False):
        """Wall time and load average of each phase, for the report."""
        now = time.time()
        if not end:
            phase_started[name] = (now, os.getloadavg()[0])
            return
        began, load0 = phase_started.pop(name)
        results["phases"].append({"phase": name, "wall_s": round(now - began, 1), "load_start": round(load0, 1),
                                  "load_end": round(os.getloadavg()[0], 1)})
        log("phase %s: %.0f s" % (name, now - began))

    def timed(worker, command):
        """One command, with the servers' CPU seconds and the load average around it."""
        load0, cpu0 = os.getloadavg()[0], servers_cpu(servers)
        answer = worker.call(command)
        cpu1 = servers_cpu(servers)
        answer["server_cpu_s"] = {k: round(cpu1[k] - cpu0[k], 2) for k in cpu1 if k in cpu0}
        answer["load"] = round((load0 + os.getloadavg()[0]) / 2, 1)
        return answer

    workers = {}
    created = []
    reads = [w for w in READS if w in only]
    try:
        phase("start workers")
        for name in CLIENTS:
            log("starting the %s worker" % name)
            workers[name] = start(name, args)
        basalt = workers["basalt"]
        phase("start workers", end=True)

        def record(workload, client, answer, rnd, rows_expected=None):
            run = dict(answer, workload=workload, client=client, round=rnd)
            run.pop("ok", None)
            results["runs"].append(run)
            if rows_expected is not None and answer["rows"] != rows_expected:
                raise RuntimeError("%s %s returned %d rows, expected %d" % (client, workload, answer["rows"],
                                                                            rows_expected))
            results["digests"].setdefault(workload, {})[client] = answer["digest"]
            log("%-8s %-13s round %s: %d rows in %.2f s, cpu %.2f s%s, servers %s" % (
                workload, client, rnd, answer["rows"], answer["wall_s"], answer["cpu_s"],
                ", p50 %.2f ms, p99 %.2f ms" % (answer["p50_ms"], answer["p99_ms"]) if workload.startswith("gets")
                else "", answer.get("server_cpu_s")))

        # Warm-up: JIT of the gateways, the region server and the Java client.
        if "write" in only or reads or "gets_cold" in only:
            phase("warm-up")
            basalt.call("create " + warm)
            created.append(warm)
            basalt.call("write %s %d" % (warm, warm_rows))
            # Only the kinds of call that will be measured (all three for writes and prefix).
            kinds = [w for w in ("scan", "merged", "gets")
                     if w in only or (w == "gets" and "gets_cold" in only) or (w == "scan" and "scan_ahead" in only)]
            if "write" in only or "prefix" in only:
                kinds = ["scan", "merged", "gets"]
            warm_commands = {"scan": "scan " + warm, "merged": "merged " + warm,
                             "gets": "gets %s %d %s" % (warm, args.tasks, warm_gets)}
            for name in CLIENTS:
                for kind in kinds:
                    workers[name].call(warm_commands[kind])
            phase("warm-up", end=True)

        # Batched writes, each client into its own fresh table; Basalt's is the data
        # every read workload then uses (checked equal to the others' by a scan).
        if "write" in only:
            phase("writes")
            write_tables = {}
            stored = {}
            for rnd in range(1, args.write_rounds + 1):
                order = CLIENTS[:]
                random.Random(5 + rnd).shuffle(order)
                for name in order:
                    table = "%s_w%d_%s" % (tag, rnd, name.replace("@", "_at_").replace("-", "_"))
                    basalt.call("create " + table)
                    created.append(table)
                    write_tables[(rnd, name)] = table
                    record("write", name, timed(workers[name], "write %s %d" % (table, args.rows)), rnd, args.rows)
                for name in order:
                    table = write_tables[(rnd, name)]
                    stored["%s round %d" % (name, rnd)] = basalt.call("scan " + table)["digest"]
                    if (rnd, name) != (1, "basalt"):
                        basalt.call("drop " + table)
                        created.remove(table)
            results["digests"]["write (stored, scanned back)"] = stored
            data = write_tables[(1, "basalt")]
            phase("writes", end=True)
        elif reads or "gets_cold" in only or "floor" in only:
            phase("load (untimed)")
            basalt.call("create " + data)
            created.append(data)
            for attempt in (1, 2, 3):
                try:
                    # Rewriting the same cells is harmless; the digests check the result.
                    basalt.call("write %s %d" % (data, args.rows))
                    break
                except RuntimeError as e:
                    if attempt == 3:
                        raise
                    log("loading the data failed (%s); again" % e)
            phase("load (untimed)", end=True)

        # The read workloads, interleaved: each round runs every workload through
        # every client, in an order that rotates from round to round.
        expected = {"scan": args.rows, "scan_ahead": args.rows, "merged": args.rows, "gets": args.gets}
        commands = {"scan": "scan %s", "scan_ahead": "scan_ahead %s", "merged": "merged %s",
                    "prefix": "prefix %%s %d" % args.prefix_day, "gets": "gets %%s %d %s" % (args.tasks, gets_file)}
        for rnd in range(1, args.rounds + 1 if reads or "floor" in only else 1):
            phase("reads, round %d" % rnd)
            for workload in reads:
                shift = (rnd - 1) % len(CLIENTS)
                for name in CLIENTS[shift:] + CLIENTS[:shift]:
                    # The peers have no read-ahead of regions: their scan_ahead is their
                    # full scan (the same rows, in the same order).
                    command = commands[workload]
                    if workload == "scan_ahead" and not name.startswith("basalt"):
                        command = commands["scan"]
                    for _ in range(max(args.prefix_repeat, 1) if workload == "prefix" else 1):
                        record(workload, name, timed(workers[name], command % data), rnd, expected.get(workload))
            # HBase's own floor: a full scan whose filter returns nothing, so the region
            # server reads every row and sends none (its CPU is what it costs to serve).
            if "floor" in only:
                who = "basalt-native" if "basalt-native" in workers else "basalt"
                answer = timed(workers[who], "floor %s" % data)
                answer.pop("ok", None)
                results["runs"].append(dict(answer, workload="floor", client=who, round=rnd, rows_scanned=args.rows))
                log("floor    %-13s round %s: %d rows scanned in %.2f s, servers %s" % (
                    who, rnd, args.rows, answer["wall_s"], answer.get("server_cpu_s")))
            phase("reads, round %d" % rnd, end=True)

        # The first requests of a freshly started client (connection set-up, pool
        # growth, JIT): one new process per client, whose first command is the gets.
        if "gets_cold" in only:
            phase("cold gets")
            for name in CLIENTS[::-1]:
                fresh = start(name, args)
                try:
                    record("gets_cold", name, timed(fresh, "gets %s %d %s" % (data, args.tasks, cold_file)), 1,
                           args.cold_gets)
                finally:
                    fresh.close()
            phase("cold gets", end=True)

        # Profiles of Basalt's worker, off the clock: one more run of each workload.
        if args.profile:
            os.makedirs(args.profile, exist_ok=True)
            phase("profiles")
            jobs = [(w, commands[w] % data) for w in reads]
            if "write" in only:
                table = tag + "_profile_write"
                basalt.call("create " + table)
                created.append(table)
                jobs.append(("write", "write %s %d" % (table, args.rows)))
            who = args.profile_client
            for workload, command in jobs:
                path = os.path.join(args.profile, "%s.perf.data" % workload)
                log("perf record: %s %s -> %s" % (who, workload, path))
                try:
                    answer = profile(workers[who], command, path, args.perf_freq)
                    answer.pop("ok", None)
                    results.setdefault("profiled", []).append(dict(answer, workload=workload, client=who))
                except (OSError, subprocess.SubprocessError) as e:
                    log("perf record of %s failed: %s" % (workload, e))
            phase("profiles", end=True)
    finally:
        for name, w in workers.items():
            if name != "basalt":
                w.close()
        if "basalt" in workers:
            for table in created:
                try:
                    workers["basalt"].call("drop " + table)
                except Exception as e:
                    log("could not drop %s: %s" % (table, e))
            workers["basalt"].close()

    if args.memory_rows and "memory" in only:
        phase("merged-scan memory")
        log("bench_salted --rows %s (peak memory of a merged scan)" % args.memory_rows)
        env = dict(os.environ, BASALT_THRIFT_ADDR=args.thrift2)
        out = subprocess.run([args.bench_salted, "--rows", args.memory_rows], env=env, capture_output=True,
                             text=True, check=False)
        with open(os.path.join(args.logs, "bench_salted.log"), "w") as f:
            f.write(out.stderr)
        if out.returncode != 0:
            raise RuntimeError("bench_salted failed: %s" % out.stderr[-2000:])
        results["memory"] = report.parse_bench_salted(out.stdout)
        phase("merged-scan memory", end=True)

    results["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    summary = report.summarise(results)
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    table = report.markdown(summary)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(table)
    print(table)
    if not summary["same_rows"]:
        log("the clients did NOT all return the same rows: see 'digests' in latest.json")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
