#!/usr/bin/env python3
"""Runs a command and prints one JSON line: wall seconds, the peak RSS (KiB) and the CPU
seconds (user + system) of the process (getrusage of the waited child).
Usage: measure.py LABEL CMD [ARGS...]"""
import json
import resource
import subprocess
import sys
import time


def main() -> None:
    label, cmd = sys.argv[1], sys.argv[2:]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.exit(f"{label}: exit {proc.returncode}")
    print(json.dumps({"label": label, "wall_s": round(wall, 3), "peak_rss_kib": peak, "cpu_s": round(cpu, 3),
                      "stdout": proc.stdout.strip()[-300:], "stderr": proc.stderr.strip()[-300:]}))


if __name__ == "__main__":
    main()
