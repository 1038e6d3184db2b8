#!/bin/bash
# ctl_flip.sh - flip one bit in every control message a stage program's
# rank receives, one run per message, and check each is caught: the rank
# that received it names itself and the message (FABCERT-MPIERR with
# "control"), the program ends non-zero within LIMIT seconds, no rank dies
# of a signal. The stage program runs under plain mpirun (no runner), on
# this machine; the interposer is build/libfc_inject.so (flip-recv; count
# first lists the calls).
#
#   tests/attack/ctl_flip.sh [STAGE...]      default: node cluster
#   NP=4 RANKS="0 1" LIMIT=20 STEP=1 PROFILE=... tests/attack/ctl_flip.sh
#
# STEP=k flips every k-th message only (a sample). RUNNER=1 runs each
# through `fabcert run --stages STAGE` instead: caught there means exit 1,
# the rack FAIL (or INCOMPLETE for a flip in the start-up, before the
# stage's first record: "the stage never began"), the receiving rank
# named, nobody quarantined. Prints one line per run and a summary; exit 0
# when every flip was caught.
set -u
cd "$(dirname "$0")/../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NP=${NP:-4}
RANKS=${RANKS:-"0 1"}
LIMIT=${LIMIT:-20}
STEP=${STEP:-1}
STAGES=${*:-node cluster}
TMP=$(mktemp -d /tmp/fc-ctlflip.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
PROFILE=${PROFILE:-tests/profiles/ctl-flip.yaml}
H=$(hostname)
INJ="-x LD_PRELOAD=$PWD/build/libfc_inject.so -x FC_INJECT_HOST=$H"
runs=0 caught=0
stage_run() {   # stage rank mode [call]
    local out=$TMP/out.$1.$2.${4:-0}
    rm -rf "$out.d"
    if [ -n "${RUNNER:-}" ]; then
        timeout -k 5 $((LIMIT + 120)) build/fabcert run --np "$NP" --profile "$PROFILE" \
            --stages "$1" --out "$out.d" --env LD_PRELOAD="$PWD/build/libfc_inject.so" \
            --env FC_INJECT_HOST="$H" --env FC_INJECT_RANK="$2" --env FC_INJECT_MODE="$3" \
            --env FC_INJECT_CALL="${4:-1}" --env FC_INJECT_PROGRAM="$1" > "$out.tap" 2>&1
        local rc=$?
        cat "$out.d/$1.log" >> "$out.err" 2> /dev/null
        return $rc
    fi
    # shellcheck disable=SC2086
    timeout -k 5 $((LIMIT + 60)) mpirun --oversubscribe -np "$NP" $INJ -x FC_INJECT_RANK="$2" \
        -x FC_INJECT_MODE="$3" -x FC_INJECT_CALL="${4:-1}" "build/suites/$1" \
        --profile "$PROFILE" --out "$out.d" > "$out.tap" 2> "$out.err"
}
for stage in $STAGES; do
    for rank in $RANKS; do
        stage_run "$stage" "$rank" count
        calls=$(grep -c "rank $rank: receive [0-9]*:" "$TMP/out.$stage.$rank.0.err")
        echo "# $stage rank $rank: $calls messages received"
        for n in $(seq 1 "$STEP" "$calls"); do
            what=$(grep "rank $rank: receive $n:" "$TMP/out.$stage.$rank.0.err" | sed 's/.*: receive [0-9]*: //')
            t0=$(date +%s.%N)
            stage_run "$stage" "$rank" flip-recv "$n"
            rc=$?
            secs=$(echo "$(date +%s.%N) - $t0" | bc)
            err=$TMP/out.$stage.$rank.$n.err
            ok=no note=""
            # Open MPI 4.1's mpirun itself sometimes dies of SIGSEGV in
            # PMIx_server_finalize, in its own exit after a job that ended
            # abnormally (after any MPI_Abort, not only these): that is
            # the launcher's, after every rank ended; a rank that dies of a
            # signal is named by mpirun ("exited on signal")
            launcher=0
            grep -q "PMIx_server_finalize" "$err" && launcher=1
            if [ -n "${RUNNER:-}" ]; then
                out=$TMP/out.$stage.$rank.$n.tap
                grep -q "rank $rank on $H" "$out" &&
                    { grep -q "^rack default: FAIL" "$out" ||
                      grep -q "the stage never began: rank $rank on $H" "$out"; } &&
                    ! grep -q '"type":"quarantine"' "$TMP/out.$stage.$rank.$n.d/results.jsonl" ||
                    rc=0
            fi
            if [ $rc -ne 0 ] && grep -q "FABCERT-MPIERR .*\"rank\":$rank,.*\"control\"" "$err" &&
               ! grep -qiE "exited on signal|core dumped" "$err" &&
               { [ $launcher = 1 ] || ! grep -qiE "segmentation|signal 11|signal 6" "$err"; } &&
               [ "$(echo "$secs < $LIMIT" | bc)" = 1 ]; then
                ok=yes
                caught=$((caught + 1))
                [ $launcher = 1 ] && note=" (mpirun crashed in its own PMIx finalize after the ranks ended)"
            fi
            runs=$((runs + 1))
            msg=$(grep -o '"control":"[^"]*"' "$err" | head -1)
            printf '%s rank %s message %d (%s): rc %d, %.1f s, caught %s %s%s\n' "$stage" "$rank" \
                "$n" "$what" "$rc" "$secs" "$ok" "$msg" "$note"
            [ $ok = yes ] || { echo "# --- $err"; tail -5 "$err"; }
        done
    done
done
echo "# $caught of $runs flips caught"
[ "$caught" -eq "$runs" ]
