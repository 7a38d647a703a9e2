#!/usr/bin/env python3
"""The baseline: a plain Python loop importing the call records CSV with happybase
batches (Thrift1), the same rows, key design and cells as `basalt import` in run.sh.

Usage: happybase_import.py HOST:PORT TABLE CALLS.csv [BATCH]"""
import csv
import struct
import sys
import time

import happybase


def java_hash(s: str) -> int:
    h = 0
    for c in s:
        h = (31 * h + ord(c)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def salt(phone: str, calltime: str, buckets: int = 6) -> str:
    """Seed 003: abs(hash(last 4 digits of phone) ^ hash(yyyyMM)) % buckets."""
    x = java_hash(phone[-4:]) ^ java_hash(calltime[:6])
    x = abs(x) if x != -(1 << 31) else x  # Java's Math.abs overflow
    r = abs(x) % buckets * (1 if x >= 0 else -1)
    return str(r).zfill(len(str(buckets - 2)))


def main() -> None:
    host, port = sys.argv[1].rsplit(":", 1)
    table_name, path = sys.argv[2], sys.argv[3]
    batch_size = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    conn = happybase.Connection(host, int(port), autoconnect=True, timeout=120_000)
    table = conn.table(table_name)
    ts = int(time.time() * 1000)
    n = 0
    with open(path, newline="", encoding="utf-8") as f, table.batch(batch_size=batch_size, timestamp=ts) as b:
        for rec in csv.DictReader(f):
            phone, calltime = rec["phone"], rec["calltime"]
            key = f"{salt(phone, calltime)}_{phone}_{calltime}".encode()
            b.put(key, {
                b"d:callee": rec["callee"].encode(),
                b"d:dur": struct.pack(">i", int(rec["duration"])),
                b"d:kind": rec["kind"].encode(),
                b"d:cell": rec["cell"].encode(),
            })
            n += 1
    conn.close()
    print(f"happybase imported {n} rows")


if __name__ == "__main__":
    main()
