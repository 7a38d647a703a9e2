#!/usr/bin/env python3
"""Deterministic telecom call records (seed 003's data): one CSV line per call.

Columns: phone (11 digits), calltime (yyyyMMddHHmmss, July..December 2021), callee
(11 digits), duration (seconds), kind (in/out/sms), cell (base station id).
Usage: gen_calls.py N OUT.csv [SEED]
"""
import random
import sys
from datetime import datetime, timedelta, timezone


def main() -> None:
    n, out = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    phones = [f"1{rng.randint(3, 9)}{rng.randrange(10**9):09d}" for _ in range(20_000)]
    start = datetime(2021, 7, 1, tzinfo=timezone.utc)
    span = 184 * 86_400
    seen = set()
    with open(out, "w", encoding="ascii", newline="") as f:
        f.write("phone,calltime,callee,duration,kind,cell\n")
        written = 0
        while written < n:
            phone = rng.choice(phones)
            t = start + timedelta(seconds=rng.randrange(span))
            calltime = t.strftime("%Y%m%d%H%M%S")
            if (phone, calltime) in seen:
                continue
            seen.add((phone, calltime))
            callee = rng.choice(phones)
            kind = rng.choice(("in", "out", "sms"))
            duration = 0 if kind == "sms" else int(rng.expovariate(1 / 120))
            cell = f"{rng.randrange(46000, 46100)}-{rng.randrange(1, 65535)}"
            f.write(f"{phone},{calltime},{callee},{duration},{kind},{cell}\n")
            written += 1


if __name__ == "__main__":
    main()
