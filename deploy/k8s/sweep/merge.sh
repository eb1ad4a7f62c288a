#!/bin/sh
# merge.sh - the merge step of a sharded sweep: concatenates
# $SWEEP_DATA/$SWEEP_STUDY/part-0.$SWEEP_FORMAT ... part-<SWEEP_SHARDS-1> in index
# order into $SWEEP_DATA/$SWEEP_STUDY/sweep.$SWEEP_FORMAT. CSV and NDJSON parts
# concatenate to exactly the unsharded sweep (only part 0 has the CSV header or
# the NDJSON units line);
# JSON parts are separate documents and are refused here.
#
# Waits up to $SWEEP_WAIT seconds (default 0) for missing parts: each part appears
# whole (mlsysd sweep --out renames a finished temporary file), so a present part is
# complete. Writes the merged file the same way. Exit 0 merged, 1 parts missing
# after the wait, 2 bad settings.
set -eu
: "${SWEEP_DATA:=/data}" "${SWEEP_WAIT:=0}"
if [ -z "${SWEEP_STUDY:-}" ] || [ -z "${SWEEP_SHARDS:-}" ] || [ -z "${SWEEP_FORMAT:-}" ]; then
  echo "merge: set SWEEP_STUDY, SWEEP_SHARDS and SWEEP_FORMAT" >&2; exit 2
fi
case "$SWEEP_SHARDS" in ''|*[!0-9]*|0) echo "merge: SWEEP_SHARDS must be a positive integer" >&2; exit 2 ;; esac
case "$SWEEP_FORMAT" in
  csv|ndjson) ;;
  json) echo "merge: JSON shards are separate documents; run the study with csv or ndjson" >&2; exit 2 ;;
  *) echo "merge: SWEEP_FORMAT must be csv or ndjson" >&2; exit 2 ;;
esac
dir=$SWEEP_DATA/$SWEEP_STUDY
waited=0
while :; do
  missing=0 first=""
  i=0
  while [ "$i" -lt "$SWEEP_SHARDS" ]; do
    if [ ! -f "$dir/part-$i.$SWEEP_FORMAT" ]; then
      missing=$((missing + 1)); [ -n "$first" ] || first=$i
    fi
    i=$((i + 1))
  done
  [ "$missing" -eq 0 ] && break
  if [ "$waited" -ge "$SWEEP_WAIT" ]; then
    echo "merge: $missing of $SWEEP_SHARDS parts missing in $dir (first: part-$first.$SWEEP_FORMAT)" >&2; exit 1
  fi
  sleep 10; waited=$((waited + 10))
done
out=$dir/sweep.$SWEEP_FORMAT
tmp=$out.tmp.$$
: >"$tmp"
i=0
while [ "$i" -lt "$SWEEP_SHARDS" ]; do
  cat "$dir/part-$i.$SWEEP_FORMAT" >>"$tmp"
  i=$((i + 1))
done
mv "$tmp" "$out"
echo "merge: $SWEEP_SHARDS parts -> $out ($(wc -c <"$out") bytes)"
