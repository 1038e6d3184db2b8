#!/bin/bash
# intermittent_blame.sh - repeated runs of the whole plan on a virtual
# cluster of uneven racks, one host flipping a bit now and then in what it
# receives (or sends), planted from outside by the MPI interposer
# (tests/inject) on that host only, while a CPU-bound process runs beside.
# A run is right when that host and only it is quarantined and no other
# rack FAILs; it is "blame right" when that host is quarantined for wrong
# data, no other host is quarantined for wrong data and no other rack FAILs
# for a wrong result (a host quarantined or a rack failed for a slowness
# the loaded machine caused is counted apart: the slowness rules are not
# what this script tests). Prints each run, then per layout "right R / N
# runs, blame right B / N".
#
#   tests/attack/intermittent_blame.sh [LAYOUT...]    (default: 2,3,1 5,3,1)
# Environment: RUNS (per layout, default 10), MODE (recv or send, default
# recv; none: the control, no fault, right when every rack PASSes), PROB (per matching call, default 0.05), PROFILE (default
# thresholds/vcluster.yaml), PPN (default 2), BUILD (default build: a copy
# keeps the runs apart from a rebuild), KEEP=1 keeps the output.
# The faulty host is the second host of rack 2. Needs root (namespaces)
# and a build (make all).
set -u
cd "$(dirname "$0")/../.."
BUILD=$(cd "${BUILD:-build}" 2> /dev/null && pwd) ||
    { echo "intermittent_blame: no build directory ${BUILD:-build}" >&2; exit 2; }
RUNS=${RUNS:-10} MODE=${MODE:-recv} PROB=${PROB:-0.05} PPN=${PPN:-2}
PROFILE=${PROFILE:-thresholds/vcluster.yaml}
LAYOUTS=("$@")
[ ${#LAYOUTS[@]} -gt 0 ] || LAYOUTS=(2,3,1 5,3,1)
case $MODE in recv) INJ_MODE=corrupt-recv ;; send) INJ_MODE=corrupt-send ;;
    none) INJ_MODE=off ;;   # the control: the same runs with no fault
    *) echo "intermittent_blame: MODE is recv, send or none, not '$MODE'" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "intermittent_blame: needs root (network namespaces)" >&2; exit 2; }
[ -x "$BUILD/fabcert" ] && [ -e "$BUILD/libfc_inject.so" ] ||
    { echo "intermittent_blame: build first (make all)" >&2; exit 2; }
VC=runners/vcluster
NAME=ib$((RANDOM % 1000))
OUT=$(mktemp -d "${TMPDIR:-/tmp}/intermittent-blame.XXXXXX")
HOG=""
cleanup() {
    [ -n "$HOG" ] && kill "$HOG" 2> /dev/null
    $VC --name $NAME down > /dev/null 2>&1
    [ -n "${KEEP:-}" ] && echo "output kept in $OUT" || rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# the CPU-bound process beside the runs
( while :; do :; done ) &
HOG=$!
summary=()
for layout in "${LAYOUTS[@]}"; do
    $VC --name $NAME down > /dev/null 2>&1
    if ! $VC --name $NAME up --nodes "$layout" > "$OUT/up.$layout" 2>&1; then
        echo "intermittent_blame: cannot build the cluster $layout: $(tail -1 "$OUT/up.$layout")" >&2
        exit 2
    fi
    D=$($VC --name $NAME dir)
    . "$D/env"
    r1=${layout%%,*}
    bad=$(printf '%s%02d' $NAME $((r1 + 2)))      # the second host of rack 2
    [ "$MODE" = none ] && bad=""                  # nobody to quarantine
    right=0 blame=0
    for n in $(seq 1 "$RUNS"); do
        out="$OUT/$layout.$n"
        start=$(date +%s)
        $VC --name $NAME exec ${NAME}01 "$BUILD/fabcert" run --hosts "$D/hosts" \
            --racks "$D/racks" --ppn "$PPN" --profile "$PROFILE" --out "$out" \
            --env LD_PRELOAD="$BUILD/libfc_inject.so" --env FC_INJECT_HOST=$bad \
            --env FC_INJECT_MODE=$INJ_MODE --env FC_INJECT_PROB=$PROB \
            --env FC_INJECT_SEED=$((RANDOM + n)) > "$out.out" 2>&1
        rc=$?
        took=$(( $(date +%s) - start ))
        q=$(grep -o '^  quarantined [^ ]*' "$out.out" | awk '{print $2}' | sort -u | paste -sd, -)
        qwrong=$(grep '^  quarantined ' "$out.out" | grep 'wrong data' | awk '{print $2}' |
                 sort -u | paste -sd, -)
        racks=$(grep -o '^rack [^:]*: [A-Z]*' "$out.out" | sed 's/^rack //; s/: /=/' | paste -sd' ' -)
        others_fail=$(grep '^rack ' "$out.out" | grep -v "^rack rack2:" | grep -c ': FAIL')
        [ "$MODE" = none ] && others_fail=$(grep '^rack ' "$out.out" | grep -c ': FAIL\|: INCOMPLETE')
        others_wrong=$(grep '^  FAIL rack rack[^2]' "$out.out" |
                       grep -ci 'wrong\|corruption\|not localised')
        verdict=WRONG
        if [ "$q" = "$bad" ] && [ "$others_fail" = 0 ]; then
            verdict=RIGHT right=$((right + 1)) blame=$((blame + 1))
        elif [ "$qwrong" = "$bad" ] && [ "$others_wrong" = 0 ]; then
            verdict="BLAME RIGHT (a slowness failed another rack or host)" blame=$((blame + 1))
        fi
        echo "$layout $MODE run $n/$RUNS: $verdict: quarantined [$q], $racks, exit $rc, ${took} s"
        [ "$verdict" = RIGHT ] ||
            grep '^  FAIL\|^  quarantined' "$out.out" | cut -c1-240 | sed 's/^/    /'
    done
    summary+=("$layout $MODE (host $bad, p=$PROB): right $right / $RUNS runs, blame right $blame / $RUNS")
done
printf '%s\n' "${summary[@]}"
