"""happybase over HBase's Thrift1 gateway, for the peer bench (driver.py): batched
writes with table.batch, full scans, and the merged and prefix scans done as
Socorro did them (seed 002: one scanner per salt, merged with heapq).

usage: happybase_worker.py HOST:PORT SALTS   (then commands on stdin, see common.py)
"""

import sys

import happybase

from common import FAMILY, PAGE, QUALIFIER, heap_merge, read_gets, row_key, row_value, salt_prefix, serve, threaded_gets

COLUMN = FAMILY + b":" + QUALIFIER


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    salts = int(sys.argv[2])
    connect = lambda: happybase.Connection(host, int(port), timeout=120000)
    connection = connect()
    getters = {}

    def write(table, rows):
        t = connection.table(table)
        with t.batch(batch_size=PAGE) as batch:
            for i in range(int(rows)):
                batch.put(row_key(i, salts), {COLUMN: row_value(i)})
        return (lambda: [row_key(i, salts) for i in range(int(rows))]), []

    def scan(table):
        keys = []
        for key, _ in connection.table(table).scan(batch_size=PAGE):
            keys.append(key)
        return keys, []

    def socorro_merge(table, prefix):
        t = connection.table(table)
        width = len(salt_prefix(0, salts))

        def salted(bucket):
            for key, row in t.scan(row_prefix=salt_prefix(bucket, salts) + prefix, batch_size=PAGE):
                yield key[width:], key, row

        keys = []
        heap_merge([salted(b) for b in range(salts)], keys.append)
        return keys, []

    def gets(table, tasks, path):
        wanted = read_gets(path, salts)
        tasks = int(tasks)
        if tasks not in getters:
            getters[tasks] = [connect().table(table) for _ in range(tasks)]

        def getter(t):
            def get(key):
                row = t.row(key)
                if not row:
                    raise KeyError(key)
                return key

            return get

        return threaded_gets(wanted, [getter(t) for t in getters[tasks]])

    serve("happybase", {
        "write": write,
        "scan": scan,
        "merged": lambda table: socorro_merge(table, b""),
        "prefix": lambda table, day: socorro_merge(table, b"%02d" % int(day)),
        "gets": gets,
    })


if __name__ == "__main__":
    main()
