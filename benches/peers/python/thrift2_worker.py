"""A plain Python Thrift2 client for the peer bench (driver.py): thriftpy2 with the
project's IDL (thrift-idl/hbase.thrift), buffered transport, binary protocol, as a
user would write it: putMultiple per 1000 rows, openScanner/getScannerRows pages,
one scanner per salt merged with heapq, one connection per get thread.

usage: thrift2_worker.py HOST:PORT SALTS IDL   (then commands on stdin, see common.py)
"""

import sys

import thriftpy2
from thriftpy2.rpc import make_client

from common import FAMILY, PAGE, QUALIFIER, heap_merge, read_gets, row_key, row_value, salt_prefix, serve, threaded_gets


def prefix_end(prefix):
    """The first key after every key starting with prefix (None: to the end)."""
    p = bytearray(prefix)
    while p and p[-1] == 0xFF:
        p.pop()
    if not p:
        return None
    p[-1] += 1
    return bytes(p)


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    salts = int(sys.argv[2])
    hb = thriftpy2.load(sys.argv[3], module_name="hbase_thrift")
    # A new connection per command (inside the timed work; a connect costs about a
    # millisecond): the gateways close connections idle for a minute.
    connect = lambda: make_client(hb.THBaseService, host, int(port), timeout=120000)
    current = []

    def with_client(handler):
        def run(*args):
            current.append(connect())
            try:
                return handler(*args)
            finally:
                current.pop().close()

        return run

    def write(table, rows):
        client = current[-1]
        rows = int(rows)
        for start in range(0, rows, PAGE):
            puts = [hb.TPut(row=row_key(i, salts),
                            columnValues=[hb.TColumnValue(family=FAMILY, qualifier=QUALIFIER, value=row_value(i))])
                    for i in range(start, min(start + PAGE, rows))]
            client.putMultiple(table.encode(), puts)
        return (lambda: [row_key(i, salts) for i in range(rows)]), []

    def scanner(table, start=None, stop=None):
        client = current[-1]
        sid = client.openScanner(table.encode(), hb.TScan(startRow=start, stopRow=stop, caching=PAGE))
        try:
            while True:
                results = client.getScannerRows(sid, PAGE)
                if not results:
                    return
                yield from results
        finally:
            client.closeScanner(sid)

    def scan(table):
        return [r.row for r in scanner(table)], []

    def merge(table, prefix):
        width = len(salt_prefix(0, salts))

        def salted(bucket):
            start = salt_prefix(bucket, salts) + prefix
            for r in scanner(table, start, prefix_end(start)):
                yield r.row[width:], r.row, r

        keys = []
        heap_merge([salted(b) for b in range(salts)], keys.append)
        return keys, []

    def gets(table, tasks, path):
        wanted = read_gets(path, salts)
        clients = [connect() for _ in range(int(tasks))]
        name = table.encode()

        def getter(c):
            def get(key):
                r = c.get(name, hb.TGet(row=key))
                if not r.columnValues:
                    raise KeyError(key)
                return r.row

            return get

        try:
            return threaded_gets(wanted, [getter(c) for c in clients])
        finally:
            for c in clients:
                c.close()

    serve("thriftpy2", {
        "write": with_client(write),
        "scan": with_client(scan),
        "merged": with_client(lambda table: merge(table, b"")),
        "prefix": with_client(lambda table, day: merge(table, b"%02d" % int(day))),
        "gets": gets,
    })


if __name__ == "__main__":
    main()
