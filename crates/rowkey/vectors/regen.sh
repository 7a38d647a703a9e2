#!/usr/bin/env bash
# Regenerates the compatibility vectors in generated/ from the real systems: the jars
# resolved by Maven from Maven Central (pom.xml: phoenix-core 5.1.3, opentsdb 2.4.1,
# hbasewd 0.1.0 and the few classes they load), the published salts' Java (SeedCode.java) and
# Socorro's row-id function (socorro_row_id.py).
#   regen.sh           rewrite generated/
#   regen.sh --check   regenerate into a temporary directory and fail if generated/ differs
# Needs Java 17+, Maven and Python 3; installs nothing outside Maven's local repository.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
check=0
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if ! mvn -q -B -Dstyle.color=never -f "$here/pom.xml" dependency:build-classpath \
    -Dmdep.outputFile="$work/classpath" >"$work/mvn.log" 2>&1; then
    cat "$work/mvn.log" >&2
    exit 1
fi
cp="$(cat "$work/classpath")"
mkdir -p "$work/classes" "$work/out"
javac -nowarn -encoding UTF-8 -d "$work/classes" -cp "$cp" "$here/GenVectors.java" "$here/SeedCode.java"
# slf4j prints a warning about its missing binding on stderr; keep it out of the log.
java -cp "$cp:$work/classes" GenVectors "$work/out" 2> >(grep -v '^SLF4J:' >&2)
python3 "$here/socorro_row_id.py" "$work/out/socorro.tsv"
if [ "$check" = 1 ]; then
    if ! diff -r -q "$here/generated" "$work/out"; then
        echo "rowkey vectors are stale: run crates/rowkey/vectors/regen.sh and commit generated/" >&2
        exit 1
    fi
    echo "rowkey vectors are current ($(ls "$work/out" | wc -l) files)"
else
    rm -rf "$here/generated"
    cp -r "$work/out" "$here/generated"
    wc -l "$here"/generated/*.tsv
fi
