#!/usr/bin/env python3
"""Runs a command and prints one JSON line: wall seconds and the peak RSS (KiB) of the
process (getrusage of the waited child). Usage: measure.py LABEL CMD [ARGS...]"""
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
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.exit(f"{label}: exit {proc.returncode}")
    print(json.dumps({"label": label, "wall_s": round(wall, 3), "peak_rss_kib": peak,
                      "stdout": proc.stdout.strip()[-300:], "stderr": proc.stderr.strip()[-300:]}))


if __name__ == "__main__":
    main()
