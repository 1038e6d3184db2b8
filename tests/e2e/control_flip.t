#!/bin/bash
# control_flip.t - a control message between the ranks of a stage (a
# status agreement, a broadcast profile, a gathered summary, the stage's
# last agreement) that arrives with one bit changed is caught by the rank
# that received it (lib/base/fc_ctl.h): the stage FAILs naming that rank and
# the message within seconds, nobody is quarantined, no rank dies of a
# signal, and no stage end says PASS; one that ends the start-up, before
# the stage's first record, leaves the stage INCOMPLETE with the same
# names. The bit is flipped from outside, by the interposer
# (build/libfc_inject.so, mode flip-recv; mode count lists the messages a
# rank receives, so the cases pick them by what they are). On the node and
# cluster stages, under `fabcert run` and under plain mpirun, 4 ranks on
# this machine. Every message of both stages, one run each:
# FC_E2E_CTL_ALL=1 (tests/attack/ctl_flip.sh).
. tests/e2e/tap.sh
FC=$BUILD/fabcert
INJ=$PWD/$BUILD/libfc_inject.so
H=$(hostname)
LIMIT=${FC_CTL_LIMIT_S:-30}
P=tests/profiles/ctl-flip.yaml
plan 12

# run NAME STAGE RANK MODE [CALL]: fabcert run of one stage, the injector on RANK
run() {
    local t0=$(date +%s.%N)
    $FC run --np 4 --profile "$P" --stages "$2" --out "$TMP/$1" \
        --env LD_PRELOAD="$INJ" --env FC_INJECT_HOST="$H" --env FC_INJECT_RANK="$3" \
        --env FC_INJECT_MODE="$4" --env FC_INJECT_CALL="${5:-1}" --env FC_INJECT_PROGRAM="$2" \
        > "$TMP/$1.out" 2>&1
    echo $? > "$TMP/$1.rc"
    echo "$(date +%s.%N) - $t0" | bc > "$TMP/$1.secs"
}
# pick NAME RANK AWK-COND: the number of the first message the count run
# NAME listed for RANK that matches (fields: $1 number, $2 call, $3 bytes)
pick() {
    sed -n "s/.*rank $2: receive \([0-9]*\): \([a-z_]*\) \([0-9]*\) bytes.*/\1 \2 \3/p" \
        "$TMP/$1/"*.log | awk "$3 { print \$1; exit }"
}
# caught NAME RANK MESSAGE VERDICT: the run ended within LIMIT, its stage's
# rack VERDICT, the record naming RANK and MESSAGE, nobody quarantined, no
# rank dead of a signal, no stage_end of that attempt saying PASS
caught() {
    local rc secs
    rc=$(cat "$TMP/$1.rc")
    secs=$(cat "$TMP/$1.secs")
    [ "$rc" -eq 1 ] && [ "$(echo "$secs < $LIMIT" | bc)" = 1 ] &&
        grep -q "^rack default: $4" "$TMP/$1.out" &&
        grep -q "rank $2 on $H.*$3" "$TMP/$1.out" &&
        ! grep -q '"type":"quarantine"' "$TMP/$1/results.jsonl" &&
        ! grep -qE "exited on signal|core dumped" "$TMP/$1/"*.log &&
        ! grep -q '"type":"stage_end".*"verdict":"PASS"' "$TMP/$1/results.jsonl"
    local st=$?
    ok $st "$1: rack $4 in $(printf '%.1f' "$secs") s, rank $2 and '$3' named (rc $rc)"
    [ $st -eq 0 ] || why "$(grep -E "^stage|CRASH|HANG|ERROR|INCOMPLETE|FAIL" "$TMP/$1.out" | head -6 | cut -c1-250)"
}

# the stages with the interposer counting: they pass, and list the messages
run count-node node 1 count
run count-node0 node 0 count
run count-cluster cluster 1 count
# (one stage of the two: the rack is INCOMPLETE for the other, left out)
grep -q "^stage node: PASS" "$TMP/count-node.out" && grep -q "^stage node: PASS" "$TMP/count-node0.out" &&
    grep -q "^stage cluster: PASS" "$TMP/count-cluster.out" &&
    ! grep -q "^rack default: FAIL" "$TMP/count-node.out" "$TMP/count-cluster.out"
ok $? "with the interposer loaded and counting, both stages pass"
n_profile=$(pick count-node 1 '$2 == "bcast" && $3 > 65536')
n_status=$(pick count-node 1 '$2 == "allgather" && ++k == 5')
n_summary=$(pick count-node0 0 '$2 == "gather" && $3 > 2048')
n_last=$(sed -n 's/.*rank 1: \([0-9]*\) receiving calls counted/\1/p' "$TMP/count-cluster/"*.log)
[ -n "$n_profile" ] && [ -n "$n_status" ] && [ -n "$n_summary" ] && [ -n "$n_last" ]
ok $? "the count names the messages (profile $n_profile, a status $n_status, summaries $n_summary, cluster's last $n_last)"

# under fabcert run
run flip-profile node 1 flip-recv "$n_profile"
caught flip-profile 1 "the profile" INCOMPLETE
grep -q "the stage never began: rank 1 on $H received the control message 'the profile' from rank 0 wrong" \
    "$TMP/flip-profile.out"
ok $? "the start-up's flip: the stage never began, and the record says who received what"
run flip-status node 1 flip-recv "$n_status"
caught flip-status 1 "the control message 'the point's status' from rank" FAIL
run flip-summary node 0 flip-recv "$n_summary"
caught flip-summary 0 "the points' summaries" FAIL
run flip-last cluster 1 flip-recv "$n_last"
caught flip-last 1 "the stage's failed points" FAIL
grep -q "a control message between the ranks arrived wrong and ended the stage" "$TMP/flip-last.out"
ok $? "the cluster stage's last agreement: caught before its end was written"

# the stage program alone, under plain mpirun: it ends itself, naming the rank
# count NAME STAGE RANK: the messages RANK receives, the stage alone
alone_count() {
    timeout -k 10 120 mpirun -np 4 -x LD_PRELOAD="$INJ" -x FC_INJECT_HOST="$H" -x FC_INJECT_RANK="$3" \
        -x FC_INJECT_MODE=count "$BUILD/suites/$2" --profile "$P" --out "$TMP/$1" \
        > /dev/null 2> "$TMP/$1.log"
}
alone() {   # alone NAME STAGE RANK CALL
    local t0=$(date +%s.%N) rc secs pid ranks="" how
    timeout -k 10 120 mpirun -np 4 -x LD_PRELOAD="$INJ" -x FC_INJECT_HOST="$H" -x FC_INJECT_RANK="$3" \
        -x FC_INJECT_MODE=flip-recv -x FC_INJECT_CALL="$4" "$BUILD/suites/$2" \
        --profile "$P" --out "$TMP/$1" > "$TMP/$1.tap" 2> "$TMP/$1.err" &
    pid=$!
    # the ranks must end within LIMIT. Open MPI 4.1's mpirun has been seen
    # to hang in its own tear-down after an aborted job, every rank already
    # gone (a clean-clone make check, twice in eight runs): at LIMIT the
    # ranks still running are counted, then mpirun is stopped. Ranks left
    # fail the point; none left is the launcher's hang, said as such.
    while kill -0 $pid 2> /dev/null; do
        if [ "$(echo "$(date +%s.%N) - $t0 >= $LIMIT" | bc)" = 1 ]; then
            ranks=$(pgrep -f "^$BUILD/suites/$2 .*--out $TMP/$1\$" | wc -l)
            kill $pid 2> /dev/null
            break
        fi
        sleep 0.2
    done
    wait $pid
    rc=$?
    secs=$(echo "$(date +%s.%N) - $t0" | bc)
    how="ended in $(printf '%.1f' "$secs") s (rc $rc)"
    [ -z "$ranks" ] || how="every rank ended within $LIMIT s ($ranks left), mpirun itself hung and was stopped"
    # mpirun 4.1 itself may die in PMIx_server_finalize after an aborted
    # job (its own exit, after every rank ended): not a rank's signal
    [ $rc -ne 0 ] && { [ -z "$ranks" ] && [ "$(echo "$secs < $LIMIT" | bc)" = 1 ] || [ "$ranks" = 0 ]; } &&
        grep -q "FABCERT-MPIERR .*\"rank\":$3,.*\"control\"" "$TMP/$1.err" &&
        grep -q "rank $3\] error: the control message '.*' from rank [0-9]* arrived wrong" "$TMP/$1.err" &&
        ! grep -qE "exited on signal|core dumped" "$TMP/$1.err" &&
        ! grep -q '"type":"stage_end"' "$TMP/$1/results.jsonl" 2> /dev/null
    st=$?
    ok $st "$2 alone under mpirun, message $4 of rank $3 flipped: $how, rank $3 named, no stage end"
    [ $st -eq 0 ] || why "$(grep -v '^FABCERT-START' "$TMP/$1.err" | tail -8 | cut -c1-200)"
}
mkdir -p "$TMP/ac0" "$TMP/ac3"
alone_count ac0/x cluster 0
alone_count ac3/x cluster 3
a_first=$(pick ac0 0 '$2 == "gather"')
a_last=$(sed -n 's/.*rank 3: \([0-9]*\) receiving calls counted/\1/p' "$TMP/ac3/"*.log)
alone alone-node node 2 "$n_status"
alone alone-cluster cluster 0 "${a_first:-0}"
alone alone-cluster-last cluster 3 "${a_last:-0}"

if [ -n "${FC_E2E_CTL_ALL:-}" ]; then
    tests/attack/ctl_flip.sh node cluster > "$TMP/all.out" 2>&1
    ok $? "every control message of node and cluster, ranks 0 and 1: $(tail -1 "$TMP/all.out")"
else
    ok 0 "# SKIP every message of both stages, one run each, takes minutes: FC_E2E_CTL_ALL=1 runs it"
fi
done_testing
