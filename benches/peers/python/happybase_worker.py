"""happybase over HBase's Thrift1 gateway, for the peer bench (driver.py): batched
writes with table.batch, full scans, and the merged and prefix scans done as
Socorro did them (seed 002: one scanner per salt, merged with heapq).

usage: happybase_worker.py HOST:PORT SALTS   (then commands on stdin, see common.py)
"""

import contextlib
import sys

import happybase

from common import FAMILY, PAGE, QUALIFIER, heap_merge, read_gets, row_key, row_value, salt_prefix, serve, threaded_gets

COLUMN = FAMILY + b":" + QUALIFIER


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    salts = int(sys.argv[2])
    # A new connection per command (inside the timed work; a connect costs about a
    # millisecond): the gateways close connections idle for a minute.
    connect = lambda: contextlib.closing(happybase.Connection(host, int(port), timeout=120000))

    def write(table, rows):
        with connect() as connection:
            with connection.table(table).batch(batch_size=PAGE) as batch:
                for i in range(int(rows)):
                    batch.put(row_key(i, salts), {COLUMN: row_value(i)})
        return (lambda: [row_key(i, salts) for i in range(int(rows))]), []

    def scan(table):
        keys = []
        with connect() as connection:
            for key, _ in connection.table(table).scan(batch_size=PAGE):
                keys.append(key)
        return keys, []

    def socorro_merge(table, prefix):
        with connect() as connection:
            return merge_on(connection.table(table), prefix)

    def merge_on(t, prefix):
        width = len(salt_prefix(0, salts))

        def salted(bucket):
            for key, row in t.scan(row_prefix=salt_prefix(bucket, salts) + prefix, batch_size=PAGE):
                yield key[width:], key, row

        keys = []
        heap_merge([salted(b) for b in range(salts)], keys.append)
        return keys, []

    def gets(table, tasks, path):
        wanted = read_gets(path, salts)
        connections = [connect().thing for _ in range(int(tasks))]

        def getter(t):
            def get(key):
                row = t.row(key)
                if not row:
                    raise KeyError(key)
                return key

            return get

        try:
            return threaded_gets(wanted, [getter(c.table(table)) for c in connections])
        finally:
            for c in connections:
                c.close()

    serve("happybase", {
        "write": write,
        "scan": scan,
        "merged": lambda table: socorro_merge(table, b""),
        "prefix": lambda table, day: socorro_merge(table, b"%02d" % int(day)),
        "gets": gets,
    })


if __name__ == "__main__":
    main()
