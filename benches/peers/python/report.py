"""Turns the peer bench's raw runs (driver.py) into figures: best speed per client and
workload, CPU per million rows, ratios Basalt / peer, basalt-native / Java and Basalt /
its baseline revision, the region server's own cost, the same-rows check, the aims of
issues 13 and 29, as JSON and as a markdown table."""

import statistics
import time

CLIENTS = ["basalt", "basalt-native", "happybase", "thriftpy2", "java"]
ALL = CLIENTS
PEERS = CLIENTS[1:]
WORKLOADS = ["write", "scan", "scan_ahead", "merged", "prefix", "gets", "gets_cold"]
TITLES = {
    "write": "batched writes (one put_many / BufferedMutator / batch / putMultiple)",
    "scan": "full scan",
    "scan_ahead": "full scan, 4 regions read at once (Basalt's parallel_regions(4); peers: their full scan)",
    "merged": "{salts}-salt merged ordered scan",
    "prefix": "~1% prefix query over {salts} salts",
    "gets": "random gets, {tasks} tasks",
    "gets_cold": "first {cold} gets after start, {tasks} tasks",
}
HEADERS = {"basalt": "Basalt", "basalt-native": "Basalt native RPC", "happybase": "happybase (Thrift1)",
           "thriftpy2": "thriftpy2 (Thrift2)", "java": "Java hbase-client"}


def baseline_of(baseline):
    """This tree's column a baseline revision's column is compared with: basalt-native for
    basalt-native@REV, else basalt."""
    return "basalt-native" if baseline.startswith("basalt-native@") else "basalt"


def header(client):
    """A column's title; a baseline revision's column is named after it (basalt@REV,
    basalt-native@REV)."""
    if client.startswith("basalt-native@"):
        return "Basalt native RPC @" + client.split("@", 1)[-1]
    return HEADERS.get(client, "Basalt @" + client.split("@", 1)[-1] if client.startswith("basalt@") else client)


def parse_bench_salted(stdout):
    """The rows of bench_salted's markdown table."""
    sizes = []
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].isdigit():
            sizes.append({"rows": int(cells[0]), "unsalted_rows_per_s": float(cells[1]),
                          "salted_rows_per_s": float(cells[2]), "unsalted_peak_mib": int(cells[4].split()[0]),
                          "salted_peak_mib": int(cells[5].split()[0])})
    return sizes


GATEWAY = {"basalt": "thrift2", "basalt-native": None, "thriftpy2": "thrift2", "happybase": "thrift1", "java": None}


def gateway(client):
    """The gateway a client talks to (a baseline revision of Basalt: Thrift2)."""
    return "thrift2" if client.startswith("basalt@") else GATEWAY.get(client)


def hbase_cpu(cpu):
    """The CPU seconds of every region server: the master's JVM (which serves one) and
    each extra region server process; None when the master's was not read."""
    if cpu.get("hbase") is None:
        return None
    return cpu["hbase"] + sum(v for k, v in cpu.items() if k.startswith("rs-"))


def _busy(run, client):
    """Cores kept busy over one run: the client, the HBase JVM and the gateway it talks
    to (the Java client has none: it talks to the region server directly)."""
    wall = run["wall_s"] or 1e-9
    cpu = run.get("server_cpu_s") or {}
    through = gateway(client)
    return {"client": run["cpu_s"] / wall,
            "hbase": hbase_cpu(cpu) / wall if "hbase" in cpu else None,
            "gateway": cpu[through] / wall if through in cpu else None}


def _cpu_per_million(workload, runs):
    """CPU seconds per million rows: the median over rounds, or for the prefix query (a
    few thousand rows, one or two 10 ms CPU ticks each) the sum over every query, whose
    tick rounding errors average out."""
    if workload == "prefix":
        rows = sum(r["rows"] for r in runs)
        return sum(r["cpu_s"] for r in runs) / rows * 1e6 if rows else 0.0
    rows = runs[0]["rows"]
    return statistics.median(r["cpu_s"] for r in runs) / rows * 1e6 if rows else 0.0


def _server_cpu_per_million(workload, runs):
    """The HBase JVM's CPU seconds per million rows while a client ran the workload
    (median over rounds; prefix: total over every query), from the driver's /proc
    readings of the server's process group."""
    cpu = [hbase_cpu(r.get("server_cpu_s") or {}) for r in runs]
    if any(c is None for c in cpu):
        return None
    if workload == "prefix":
        rows = sum(r["rows"] for r in runs)
        return sum(cpu) / rows * 1e6 if rows else None
    rows = runs[0]["rows"]
    return statistics.median(cpu) / rows * 1e6 if rows else None


def floor(results):
    """HBase's own cost per million rows scanned: the region server's CPU during a full
    scan whose filter returns nothing (median over rounds), and that scan's speed."""
    runs = [r for r in results["runs"] if r["workload"] == "floor"]
    cpu = [hbase_cpu(r.get("server_cpu_s") or {}) for r in runs]
    if not runs or any(c is None for c in cpu):
        return None
    scanned = runs[0]["rows_scanned"]
    best = min(r["wall_s"] for r in runs)
    return {"client": runs[0]["client"], "rounds": len(runs), "rows_scanned": scanned,
            "hbase_cpu_s_per_million": statistics.median(cpu) / scanned * 1e6,
            "rows_per_second": scanned / best if best > 0 else None}


def summarise(results):
    """Best round per client and workload (the least disturbed by the other engineers'
    load), CPU as the median over rounds, ratios of Basalt's speed to each peer's."""
    figures = {}
    same = {}
    clients = results["config"].get("clients") or CLIENTS
    baseline = results["config"].get("baseline")
    for workload in WORKLOADS:
        runs = [r for r in results["runs"] if r["workload"] == workload]
        if not runs:
            continue
        digests = sorted({r["digest"] for r in runs})
        same[workload] = {"same": len(digests) == 1, "digests": digests, "rows": runs[0]["rows"]}
        per = {}
        for client in clients:
            mine = [r for r in runs if r["client"] == client]
            if not mine:
                continue
            best = min(mine, key=lambda r: r["wall_s"])
            rows = best["rows"]
            per[client] = {
                "rows": rows,
                "rounds": len(mine),
                "best_wall_s": best["wall_s"],
                "per_second": rows / best["wall_s"] if best["wall_s"] > 0 else 0.0,
                "s_per_million": best["wall_s"] / rows * 1e6 if rows else None,
                "per_second_rounds": [round(r["rows"] / r["wall_s"], 1) for r in mine if r["wall_s"] > 0],
                "cpu_s_per_million": _cpu_per_million(workload, mine),
                "server_cpu_s_per_million": _server_cpu_per_million(workload, mine),
                "p50_ms": best["p50_ms"],
                "p99_ms": best["p99_ms"],
                "busy_cores": _busy(best, client),
                "load": best.get("load"),
            }
        basalt = per.get("basalt")
        if basalt:
            for client in clients[1:]:
                if client in per:
                    peer = per[client]
                    peer["speed_ratio"] = basalt["per_second"] / peer["per_second"] if peer["per_second"] else None
                    peer["cpu_ratio"] = (peer["cpu_s_per_million"] / basalt["cpu_s_per_million"]
                                         if basalt["cpu_s_per_million"] else None)
                    if workload.startswith("gets"):
                        peer["p50_ratio"] = peer["p50_ms"] / basalt["p50_ms"] if basalt["p50_ms"] else None
                        peer["p99_ratio"] = peer["p99_ms"] / basalt["p99_ms"] if basalt["p99_ms"] else None
        native, java = per.get("basalt-native"), per.get("java")
        if native and java:
            native["vs_java"] = {
                "speed_ratio": native["per_second"] / java["per_second"] if java["per_second"] else None,
                "cpu_ratio": (native["cpu_s_per_million"] / java["cpu_s_per_million"]
                              if java["cpu_s_per_million"] else None),
                "p99_ratio": native["p99_ms"] / java["p99_ms"] if workload.startswith("gets") and java["p99_ms"]
                else None}
        # A native baseline (basalt-native@REV) is compared with this tree's native column.
        current = per.get(baseline_of(baseline)) if baseline else None
        if baseline and baseline in per and current:
            before = per[baseline]
            current["vs_baseline"] = {
                "speed_ratio": current["per_second"] / before["per_second"] if before["per_second"] else None,
                "cpu_ratio": (current["cpu_s_per_million"] / before["cpu_s_per_million"]
                              if before["cpu_s_per_million"] else None)}
        figures[workload] = per
    stored = results["digests"].get("write (stored, scanned back)", {})
    if stored:
        same["write (stored, scanned back)"] = {"same": len(set(stored.values())) == 1,
                                                 "digests": sorted(set(stored.values())),
                                                 "rows": results["config"]["rows"]}
    summary = {"config": results["config"], "started": results["started"], "finished": results.get("finished"),
               "figures": figures, "same_rows_check": same, "same_rows": all(v["same"] for v in same.values()),
               "memory": results["memory"], "runs": results["runs"], "phases": results.get("phases", []),
               "profiled": results.get("profiled"), "floor": floor(results)}
    summary["aims"] = aims(summary)
    summary["native_aims"] = native_aims(summary)
    return summary


def native_aims(summary):
    """Issue 29's aims for basalt-native against the warm Java client, measured in the same
    run: at least 1.5x its speed and at most half its client CPU per row on every
    workload, a gets p99 at most 0.8x Java's, and native writes at most the gateway
    route's client CPU per row."""
    f = summary["figures"]
    out = []

    def aim(what, value, target, met):
        out.append({"aim": what, "measured": value, "target": target,
                    "met": None if value is None else bool(met(value))})

    def vs(workload, key):
        return (f.get(workload, {}).get("basalt-native", {}).get("vs_java") or {}).get(key)

    for workload in WORKLOADS:
        if workload == "gets_cold":
            continue
        aim("%s: speed vs Java" % workload, vs(workload, "speed_ratio"), ">= 1.5x", lambda v: v >= 1.5)
    aim("warm gets: p99 vs Java's", vs("gets", "p99_ratio"), "<= 0.8", lambda v: v <= 0.8)
    for workload in WORKLOADS:
        if workload == "gets_cold":
            continue
        aim("%s: client CPU per row vs Java's" % workload, vs(workload, "cpu_ratio"), "<= 0.5",
            lambda v: v <= 0.5)
    native, gateway_route = (_get(f, "write", c, "cpu_s_per_million") for c in ("basalt-native", "basalt"))
    aim("writes: native client CPU per row vs the gateway route's",
        native / gateway_route if native and gateway_route else None, "<= 1", lambda v: v <= 1)
    return out


def _get(figures, workload, client, key):
    return figures.get(workload, {}).get(client, {}).get(key)


def aims(summary):
    """Issue 13's aims, each with the measured value and whether it is met."""
    f = summary["figures"]
    out = []

    def aim(what, value, target, met):
        out.append({"aim": what, "measured": value, "target": target,
                    "met": None if value is None else bool(met(value))})

    aim("full scan vs plain Python Thrift2", _get(f, "scan", "thriftpy2", "speed_ratio"), ">= 2x", lambda v: v >= 2)
    aim("full scan vs Java", _get(f, "scan", "java", "speed_ratio"), ">= 1.5x", lambda v: v >= 1.5)
    aim("merged scan vs Socorro-style merge", _get(f, "merged", "happybase", "speed_ratio"), ">= 5x",
        lambda v: v >= 5)
    pys = [x for x in (_get(f, "scan", c, "cpu_s_per_million") for c in ("happybase", "thriftpy2")) if x]
    mine = _get(f, "scan", "basalt", "cpu_s_per_million")
    aim("scan CPU per row vs the fastest Python client", mine / min(pys) if pys and mine else None, "<= 0.2",
        lambda v: v <= 0.2)
    for workload in ("gets", "gets_cold"):
        aim("%s throughput vs happybase" % workload, _get(f, workload, "happybase", "speed_ratio"), ">= 2x",
            lambda v: v >= 2)
        b99, j99 = _get(f, workload, "basalt", "p99_ms"), _get(f, workload, "java", "p99_ms")
        aim("%s p99 vs Java's" % workload, b99 / j99 if b99 and j99 else None, "<= 0.5", lambda v: v <= 0.5)
    aim("one put_many vs Java BufferedMutator", _get(f, "write", "java", "speed_ratio"), ">= 1.5x",
        lambda v: v >= 1.5)
    memory = summary.get("memory") or []
    if len(memory) >= 2:
        growth = memory[-1]["salted_peak_mib"] / max(memory[0]["salted_peak_mib"], 1)
        aim("merged-scan peak memory, %d -> %d rows" % (memory[0]["rows"], memory[-1]["rows"]), growth,
            "flat (<= 1.2x)", lambda v: v <= 1.2)
    return out


def _fmt_rate(v):
    return "{:,.0f}".format(v) if v is not None else "-"


def _fmt_ratio(v):
    return "%.2fx" % v if v is not None else "-"


def servers_line(config):
    """What served the run: one standalone HBase, or its region servers."""
    n = config.get("region_servers") or 1
    if n == 1:
        return "one standalone HBase 2.6.1"
    return ("HBase 2.6.1 with %d region servers (one in the master's JVM, %d more as processes of their own; "
            "the tables' regions spread over all)" % (n, n - 1))


def markdown(summary):
    c = summary["config"]
    f = summary["figures"]
    clients = c.get("clients") or ALL
    names = {k: v.format(salts=c["salts"], tasks=c["tasks"], cold=c["cold_gets"]) for k, v in TITLES.items()}
    lines = ["# Basalt beside its peers (benches/run.sh)", "",
             "%d rows of 200 B, %d salts; %d round(s) of the writes and %d interleaved rounds of the reads "
             "(best round kept); %d warm gets; %s on this machine; run %s .. %s.%s"
             % (c["rows"], c["salts"], c.get("write_rounds", 1), c["rounds"], c["gets"], servers_line(c),
                summary["started"],
                summary["finished"], "" if "only" not in c or len(c["only"]) == 8
                else " Only: %s (`--only`)." % ", ".join(c["only"])), "",
             "## Speed: rows/s (gets/s); in brackets Basalt / peer", "",
             "| workload | " + " | ".join(header(x) for x in clients) + " |",
             "|---|" + "---:|" * len(clients)]
    for workload in WORKLOADS:
        per = f.get(workload)
        if not per:
            continue
        cells = []
        for client in clients:
            x = per.get(client)
            if not x:
                cells.append("")
            elif client == "basalt":
                cells.append(_fmt_rate(x["per_second"]))
            else:
                cells.append("%s (%s)" % (_fmt_rate(x["per_second"]), _fmt_ratio(x.get("speed_ratio"))))
        lines.append("| %s | %s |" % (names[workload], " | ".join(cells)))
    if "merged" in f or "prefix" in f:
        lines += ["", "For the merged and prefix scans the Python columns merge as the HBase book's timestamp design does: one scanner per "
                  "salt merged with `heapq` (happybase: Socorro's pattern over Thrift1; thriftpy2: the same over "
                  "Thrift2); Java merges its ResultScanners with a PriorityQueue."]
    if "gets" in f or "gets_cold" in f:
        lines += ["", "## Get latency: p50 / p99 ms; in brackets peer / Basalt", "",
                  "| gets | " + " | ".join(header(x) for x in clients) + " |", "|---|" + "---:|" * len(clients)]
    for workload in ("gets", "gets_cold"):
        per = f.get(workload, {})
        cells = []
        for client in clients:
            x = per.get(client)
            if not x:
                cells.append("")
                continue
            cell = "%.2f / %.2f" % (x["p50_ms"], x["p99_ms"])
            if client != "basalt":
                cell += " (%s / %s)" % (_fmt_ratio(x.get("p50_ratio")), _fmt_ratio(x.get("p99_ratio")))
            cells.append(cell)
        if per:
            lines.append("| %s | %s |" % (names[workload], " | ".join(cells)))
    lines += ["", "## Client CPU seconds per million rows (gets: per million gets), median over rounds (prefix: "
              "total over its %d queries per round); each client's own process (/proc/self/stat)"
              % c.get("prefix_repeat", 1), "",
              "| workload | " + " | ".join(header(x) for x in clients) + " |", "|---|" + "---:|" * len(clients)]
    for workload in WORKLOADS:
        per = f.get(workload)
        if per:
            cells = ["%.2f" % per[x]["cpu_s_per_million"] if x in per else "" for x in clients]
            lines.append("| %s | %s |" % (names[workload], " | ".join(cells)))
    if any(per.get(x, {}).get("server_cpu_s_per_million") is not None for per in f.values() for x in clients):
        fl = summary.get("floor")
        lines += ["", "## Region server CPU seconds per million rows (gets: per million gets): HBase's JVMs "
                  "(every region server) during each client's runs, median over rounds", ""]
        if fl:
            lines += ["HBase's own floor: a full scan whose filter returns nothing (every row read, none sent) "
                      "costs the region server **%.2f** CPU-s per million rows and runs at %s rows/s (%d round(s), "
                      "through %s). A scan column near it means the client asks the server for no more than "
                      "reading the rows costs; the gap above it is the cost of sending them."
                      % (fl["hbase_cpu_s_per_million"], _fmt_rate(fl["rows_per_second"]), fl["rounds"],
                         header(fl["client"])), ""]
        lines += ["| workload | " + " | ".join(header(x) for x in clients) + " |", "|---|" + "---:|" * len(clients)]
        for workload in WORKLOADS:
            per = f.get(workload)
            if per:
                cells = ["%.2f" % per[x]["server_cpu_s_per_million"]
                         if x in per and per[x].get("server_cpu_s_per_million") is not None else "" for x in clients]
                lines.append("| %s | %s |" % (names[workload], " | ".join(cells)))
    lines += ["", "## Seconds per million rows (gets: per million gets), best round", "",
              "| workload | " + " | ".join(header(x) for x in clients) + " |", "|---|" + "---:|" * len(clients)]
    for workload in WORKLOADS:
        per = f.get(workload)
        if per:
            cells = ["%.2f" % per[x]["s_per_million"] if x in per and per[x].get("s_per_million") else ""
                     for x in clients]
            lines.append("| %s | %s |" % (names[workload], " | ".join(cells)))
    if any("vs_java" in (f.get(w, {}).get("basalt-native") or {}) for w in WORKLOADS):
        lines += ["", "## Basalt native RPC / Java hbase-client, same run", "",
                  "| workload | speed native / Java | CPU per row native / Java | p99 native / Java |",
                  "|---|---:|---:|---:|"]
        for workload in WORKLOADS:
            v = (f.get(workload, {}).get("basalt-native") or {}).get("vs_java")
            if v:
                lines.append("| %s | %s | %s | %s |" % (names[workload], _fmt_ratio(v["speed_ratio"]),
                                                      _fmt_ratio(v["cpu_ratio"]), _fmt_ratio(v["p99_ratio"])))
    baseline = c.get("baseline")
    current = baseline_of(baseline) if baseline else None
    if baseline and any("vs_baseline" in (f.get(w, {}).get(current) or {}) for w in WORKLOADS):
        over = "the native RPC" if current == "basalt-native" else "Thrift2"
        lines += ["", "## Before / after: %s (this tree) / %s, both over %s, same run"
                  % (header(current), header(baseline), over), "",
                  "| workload | speed this / before | CPU per row this / before |", "|---|---:|---:|"]
        for workload in WORKLOADS:
            v = (f.get(workload, {}).get(current) or {}).get("vs_baseline")
            if v:
                lines.append("| %s | %s | %s |" % (names[workload], _fmt_ratio(v["speed_ratio"]),
                                                 _fmt_ratio(v["cpu_ratio"])))
    lines += ["", "## Who is busy: cores kept busy during the best round (CPU seconds / wall seconds) by the "
              "client / HBase (the master's JVM and every region server) / the gateway it talks to; load average",
              "",
              "2 cores in all: a sum near 2 means the machine, not the client, bounds the workload. The Java "
              "client talks to the region server directly (no gateway).", "",
              "| workload | " + " | ".join(header(x) for x in clients) + " |", "|---|" + "---:|" * len(clients)]
    for workload in WORKLOADS:
        per = f.get(workload)
        if not per:
            continue
        cells = []
        for client in clients:
            b = per.get(client, {}).get("busy_cores")
            if not b:
                cells.append("")
                continue
            parts = ["-" if b[k] is None else "%.2f" % b[k] for k in ("client", "hbase", "gateway")]
            if gateway(client) is None:
                parts[2] = "none"
            load = per[client].get("load")
            cells.append(" / ".join(parts) + ("; load %.1f" % load if load is not None else ""))
        lines.append("| %s | %s |" % (names[workload], " | ".join(cells)))
    if summary.get("phases"):
        lines += ["", "## Phases: wall time and load average (1 min) at start and end", "",
                  "| phase | wall s | load |", "|---|---:|---|"]
        for ph in summary["phases"]:
            lines.append("| %s | %.0f | %.1f -> %.1f |" % (ph["phase"], ph["wall_s"], ph["load_start"],
                                                           ph["load_end"]))
    lines += ["", "## Same rows, same order (MD5 of the keys in the order returned, every round)", ""]
    for workload, check in summary["same_rows_check"].items():
        lines.append("- %s: %s (%d rows%s)" % (
            workload, "yes" if check["same"] else "**NO**", check["rows"],
            ", md5 %s" % check["digests"][0][:12] if check["same"] else ", digests " + ", ".join(check["digests"])))
    memory = summary.get("memory")
    if memory:
        lines += ["", "## Peak memory of a Basalt merged scan (crates/client/examples/bench_salted.rs)", "",
                  "| rows | 16-salt merged scan, peak RSS | unsalted scan, peak RSS | merged rows/s |",
                  "|---:|---:|---:|---:|"]
        for m in memory:
            lines.append("| {:,} | {} MiB | {} MiB | {:,.0f} |".format(m["rows"], m["salted_peak_mib"],
                                                                       m["unsalted_peak_mib"],
                                                                       m["salted_rows_per_s"]))
    lines += ["", "## Issue 13's aims", "", "| aim | measured | target | met |", "|---|---:|---|---|"]
    subset = "only" in c and len(c["only"]) < 8
    for a in summary["aims"]:
        v = a["measured"]
        if v is None and subset:
            continue  # not measured in this --only/--peers run
        lines.append("| %s | %s | %s | %s |" % (a["aim"], "-" if v is None else "%.2f" % v, a["target"],
                                                {True: "yes", False: "no", None: "-"}[a["met"]]))
    if any(a["measured"] is not None for a in summary.get("native_aims") or []):
        lines += ["", "## Issue 29's aims (basalt-native / warm Java)", "", "| aim | measured | target | met |",
                  "|---|---:|---|---|"]
        for a in summary["native_aims"]:
            v = a["measured"]
            lines.append("| %s | %s | %s | %s |" % (a["aim"], "-" if v is None else "%.2f" % v, a["target"],
                                                    {True: "yes", False: "no", None: "-"}[a["met"]]))
    lines += ["", "_Written %s._" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), ""]
    return "\n".join(lines)
