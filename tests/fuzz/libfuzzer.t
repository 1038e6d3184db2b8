#!/bin/bash
# libfuzzer.t - the fuzz targets (tests/fuzz/fuzz_targets.c) under
# libFuzzer, FC_FUZZ_SECONDS each (default 1), from the committed seeds
# (tests/fuzz/corpus/NAME; the control frames' sealed afresh; what libFuzzer finds goes to a scratch
# directory, never into the tree). Skipped where clang's libFuzzer was not
# found at build time (build/tests/fuzz_libfuzzer absent): the
# deterministic driver (build/tests/fuzz_inputs.t) runs everywhere.
cd "$(dirname "$0")/../.."
BIN=${BUILD:-build}/tests/fuzz_libfuzzer
TARGETS="hostlist inventory slurm ibnet k8s profile results rundir certificate frame"
SECS=${FC_FUZZ_SECONDS:-1}
echo "TAP version 13"
if [ ! -x "$BIN" ]; then
    echo "1..0 # SKIP no libFuzzer build (clang -fsanitize=fuzzer was not found): the deterministic driver runs instead"
    exit 0
fi
echo "1..$(echo $TARGETS | wc -w)"
TMP=$(mktemp -d /tmp/fc-libfuzzer.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
n=0
for t in $TARGETS; do
    n=$((n + 1))
    mkdir -p "$TMP/$t/new"
    seeds=$OLDPWD/tests/fuzz/corpus/$t
    if [ "$t" = frame ]; then    # sealed from the structures as built
        mkdir -p "$TMP/$t/seeds"
        ${BUILD:-build}/tests/fuzz_inputs.t --frame-seeds "$TMP/$t/seeds" && seeds=$TMP/$t/seeds
    fi
    t0=$(date +%s.%N)
    # leaks are not what this hunts (an error path's unfreed table); a
    # crash, a sanitizer's report of a bad access or UB, an abort are
    ( cd "$TMP/$t" && FC_FUZZ_TARGET=$t FC_FUZZ_GOLDEN_RUN=$OLDPWD/tests/golden/report/clean \
          ASAN_OPTIONS=detect_leaks=0 "$OLDPWD/$BIN" -max_total_time="$SECS" -timeout=30 \
          -rss_limit_mb=2048 -print_final_stats=1 new "$seeds" \
          > log 2>&1 )
    rc=$?
    secs=$(echo "$(date +%s.%N) - $t0" | bc)
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$TMP/$t/log" | grep -o '[0-9]*$')
    if [ $rc -eq 0 ]; then
        printf 'ok %d - %s: %s inputs under libFuzzer, none crashed, %.1f s\n' $n "$t" "${runs:-?}" "$secs"
    else
        printf 'not ok %d - %s: libFuzzer stopped (exit %d) after %.1f s\n' $n "$t" $rc "$secs"
        grep -E "ERROR|SUMMARY|fuzz:|Test unit written" "$TMP/$t/log" | head -8 | sed 's/^/# /'
        cp "$TMP/$t"/crash-* "$TMP/$t"/timeout-* . 2> /dev/null
    fi
done
