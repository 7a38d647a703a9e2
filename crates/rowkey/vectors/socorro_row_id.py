"""Socorro's HBase row ids, written to generated/socorro.tsv.

Socorro (socorro/storage/hbase_client.py) stores a crash under
``ooid_to_row_id(ooid) = ooid[0] + ooid[-6:] + ooid``: the first character of the id
as written (its salt, one of 16 scanners' prefixes when it is a lower-case hex digit),
then the id's last six characters (the submission date yymmdd, set by
socorro/lib/ooid.py when the id is created), then the whole id. Reimplemented here from
that description; ids are made the way ooid.py makes them (a uuid4 whose last seven
characters become the depth digit and yymmdd), some of them upper-cased as clients may
send them.
"""
import random
import sys
import uuid


def ooid_to_row_id(ooid):
    return "%s%s%s" % (ooid[0], ooid[-6:], ooid)


def create_ooid(rng, year, month, day, depth=2):
    base = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return "%s%d%02d%02d%02d" % (base[:-7], depth, year % 100, month, day)


def main(path):
    rng = random.Random(8)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for i in range(3000):
            ooid = create_ooid(rng, rng.randint(2008, 2030), rng.randint(1, 12), rng.randint(1, 28), rng.randint(1, 4))
            if i % 8 == 0:
                ooid = ooid.upper()
            elif i % 8 == 1:
                ooid = ooid[0].upper() + ooid[1:]
            out.write("%s\t%s\n" % (ooid, ooid_to_row_id(ooid).encode("utf-8").hex()))


if __name__ == "__main__":
    main(sys.argv[1])
