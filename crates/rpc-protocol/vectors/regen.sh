#!/usr/bin/env bash
# Regenerates the protocol vectors in generated/ with HBase 2.6.1's own classes (the
# jars pom.xml resolves from Maven Central, or from the local cache the test bed fills):
# cell blocks from its KeyValue codecs, call and reply frames, a RegionMovedException as
# a server sends it, RegionInfo values, region names and meta scan keys.
#   regen.sh           rewrite generated/
#   regen.sh --check   regenerate into a temporary directory and fail if generated/ differs
# Needs Java 17+ and Maven.
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
javac -nowarn -encoding UTF-8 -d "$work/classes" -cp "$cp" "$here/GenVectors.java"
# slf4j prints a warning about its missing binding on stderr; keep it out of the log.
java -cp "$cp:$work/classes" GenVectors "$work/out" 2> >(grep -v '^SLF4J:' >&2)
if [ "$check" = 1 ]; then
    if ! diff -r -q "$here/generated" "$work/out"; then
        echo "rpc-protocol vectors are stale: run crates/rpc-protocol/vectors/regen.sh and commit generated/" >&2
        exit 1
    fi
    echo "rpc-protocol vectors are current ($(ls "$work/out" | wc -l) files)"
else
    rm -rf "$here/generated"
    cp -r "$work/out" "$here/generated"
    wc -l "$here"/generated/*.tsv
fi
