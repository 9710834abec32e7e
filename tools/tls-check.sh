#!/usr/bin/env bash
# tls-check.sh: fails when the extension's static TLS block nears what glibc gives a dlopen()ed
# library (its surplus, ~1.6 KiB, shared by every module PHP loads): past it, `php` refuses to
# load the .so with "cannot allocate memory in static TLS block". Box large thread_locals.
set -eu
SO=${1:-target/release/librswoole.so}
LIMIT=${TLS_LIMIT:-1280}
hex=$(readelf -lW "$SO" | awk '$1 == "TLS" { print $6 }')
size=$((hex))
echo "tls-check: $SO static TLS = $size bytes (limit $LIMIT)"
[ "$size" -le "$LIMIT" ] || { echo "tls-check: too large: box the biggest thread_local! (readelf -sW $SO | awk '\$4==\"TLS\"')"; exit 1; }
