#!/bin/bash
# every_call.t - no PASS from an unchecked call: every collective call a
# stage makes through the engine (the warm-up's, the timed iterations',
# the batched timing's, an alone confirmation's) has its output checked,
# shown from outside by the MPI injector (tests/inject, corrupt-recv: one
# bit of what world rank 1 RECEIVED is flipped after the call):
#   1. per stage (node, rack, cluster, soak, contention's foreground,
#      overlap, and cluster on the nccl backend through the stand-in GPU
#      plugin, whose "device" is MPI): a bit flipped in every call rank 1
#      makes; the injector's own tally (FC_INJECT_TALLY: calls made,
#      calls in which data was received, bits flipped) against the stage's
#      records: every flip caught as exactly one wrong element (the
#      records' wrong elements sum to the flips), the calls the records
#      say were made equal to the injector's count, and every one of them
#      checked. Every collective, in place or not; a rank receives nothing
#      in a reduce off the root or as a broadcast's root (the check there
#      is that the call left its buffer alone: checker_faults.t plants
#      that fault). A table of the counts is printed per stage;
#   2. one flip alone (an intermittent fault) in each kind of call of a
#      cluster point (warm-up, timed, batched): FAIL naming rank 1 and the
#      call (its iteration), every call still counted and checked, exit 1,
#      the stage ended (no hang, no signal); and one in a control message
#      rank 1 receives (flip-recv: the point's status agreement), FAIL
#      naming rank 1 and the message within seconds, no signal;
#   3. the scaling stage (two hosts of a virtual cluster), as 1;
#   4. the report judges the calls again from the record: a clean run's
#      point given fewer checked calls than made, no count, no call made
#      at all, or fewer timed calls than its iterations, under its PASS,
#      is a FAIL.
# Sizes of 16 KiB and more on 3 ranks: the injector counts calls of 4 KiB
# and more (FC_INJECT_MIN_BYTES), which keeps the stages' own small
# control messages out of its count.
# lane: long (a minute or more: started first)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
INJ=$PWD/$BUILD/libfc_inject.so
STANDIN=$PWD/$BUILD/tests/libfc_gpu_standin.so
H=$(hostname)
plan 18
ALL=all_reduce,all_gather,reduce_scatter,broadcast,all_to_all,sendrecv,reduce
ALL=$ALL,all_reduce_inplace,all_gather_inplace,reduce_scatter_inplace,broadcast_inplace
sweep() {   # sweep STAGE COLLECTIVES [SIZES]: the profile of a sweep stage
    cat <<YAML
name: every-call
seed: 5
stages:
  $1:
    timeout_s: 120
    warmup: 1
    iters: 3
    sizes: [${3:-16KiB, 64KiB}]
    collectives: [$2]
    dtypes: [int32]
    ops: [sum]
YAML
}
for s in node rack cluster; do sweep $s $ALL > "$TMP/$s.yaml"; done
sweep soak all_reduce,all_gather > "$TMP/soak.yaml"
sweep cluster all_reduce 16KiB > "$TMP/one.yaml"
cat >> "$TMP/soak.yaml" <<YAML
    soak:
      duration_s: 3
      window_s: 1
YAML
cat > "$TMP/contention.yaml" <<YAML
name: every-call
seed: 5
stages:
  contention:
    timeout_s: 60
    warmup: 1
    iters: 3
    sizes: [16KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
    contention:
      scope: cluster
      max_slowdown: 1000
      min_background_pct: 1
      phase_s: 0.3
      foreground_ranks_per_node: 2
      background_ranks_per_node: 1
      storage_dir: /var/tmp
      storage_file: {block: 64KiB, rate_mbps: 10}
YAML
cat > "$TMP/overlap.yaml" <<YAML
name: every-call
seed: 5
stages:
  overlap:
    timeout_s: 60
    warmup: 1
    iters: 3
    sizes: [64KiB]
    overlap:
      compute_ms: 2
      min_overlap_pct: 0
YAML
flip() {    # flip OUT PROFILE STAGE [options]: rank 1's received bits flipped (MODE)
    local out=$1 profile=$2 stage=$3; shift 3
    $FC run --np 3 --profile "$profile" --out "$TMP/$out" --env LD_PRELOAD="$INJ" \
        --env FC_INJECT_HOST="$H" --env FC_INJECT_RANK=1 --env FC_INJECT_MODE="${MODE:-corrupt-recv}" \
        --env FC_INJECT_PROGRAM="$stage" --env FC_INJECT_TALLY="$TMP/$out.tally" "$@" \
        > "$TMP/$out.out" 2>&1
}
# "calls received flipped" of rank 1, from the injector
tally() { perl -ne 'print "$1 $2 $3" if / 1 calls=(\d+) received=(\d+) flipped=(\d+)/' "$TMP/$1.tally"; }
# "made checked wrong warmup timed batched" from the stage's own records
counted() {
    jsonl "$TMP/$1/results.jsonl" 'my ($m, $c, $w, %k) = (0, 0, 0);
        for my $r (grep { $_->{calls} && $_->{stage} eq "'"$2"'" } @r) {
            $w += $r->{wrong};
            for my $kind (qw(warmup timed batched)) {
                $m += $r->{calls}{$kind}{made}; $c += $r->{calls}{$kind}{checked};
                $k{$kind} += $r->{calls}{$kind}{made} } }
        "$m $c $w $k{warmup} $k{timed} $k{batched}"'
}
diag "stage          calls made (injector)  received  flipped | records: made  checked  wrong (warmup+timed+batched)"
every() {   # every LABEL OUT STAGE: the counts agree, all of them
    local t c
    read -r calls recvd flipped <<< "$(tally "$2")"
    read -r made checked wrong kw kt kb <<< "$(counted "$2" "$3")"
    diag "$(printf '%-14s %21s %9s %8s | %14s %8s %6s (%s+%s+%s)' "$1" "$calls" "$recvd" \
        "$flipped" "$made" "$checked" "$wrong" "$kw" "$kt" "$kb")"
    [ -n "$calls" ] && [ "$calls" -gt 0 ] && [ "$recvd" -gt 0 ] && [ "$flipped" = "$recvd" ] &&
        [ "$made" = "$calls" ] && [ "$checked" = "$calls" ] && [ "$wrong" = "$flipped" ]
    ok $? "$1: every call rank 1 made had its output checked: $calls made (injector), $flipped bits flipped where it received, $wrong caught, $checked of $made checked (records)"
}

# 1. every call of every stage
for s in node rack cluster soak contention overlap; do
    flip "$s" "$TMP/$s.yaml" "$s"
    every "$s" "$s" "$s"
done
flip nccl "$TMP/cluster.yaml" cluster --backend nccl --env FABCERT_GPU_PLUGIN="$STANDIN" \
    --env FC_GPU_STANDIN=host
every "cluster (nccl)" nccl cluster
n=$(counted cluster cluster)
set -- $n
[ "$4" -gt 0 ] && [ "$5" -gt 0 ] && [ "$6" -gt 0 ]
ok $? "the cluster stage's calls include warm-up ($4), timed ($5) and batched ($6) ones, every one flipped and caught"

# 2. one flip, in one call of each kind: call 1 is the warm-up, 2-4 the
# timed iterations, 5-7 the batch (iterations 0, 1-3, 4-6); the point's
# record still counts its 7 calls, all checked
for c in 1 3 6; do
    flip "one$c" "$TMP/one.yaml" cluster --env FC_INJECT_CALL=$c --env FC_INJECT_TIMES=1
    rc=$?
    n=$(jsonl "$TMP/one$c/results.jsonl" 'my ($p) = grep { $_->{type} eq "point" } @r;
        my ($e) = grep { $_->{type} eq "stage_end" } @r;
        my $m = $p->{first_mismatch} // {};
        my ($made, $checked) = (0, 0);
        for my $k (values %{$p->{calls} // {}}) { $made += $k->{made}; $checked += $k->{checked} }
        join ":", $p->{verdict}, $p->{wrong}, $m->{rank} // "-", $m->{iteration} // "-",
            "$made/$checked", $e ? "ended" : "no end",
            scalar grep { $_->{type} =~ /^(hang|crash)$/ } @r')
    kind=$([ $c = 1 ] && echo warm-up || { [ $c -le 4 ] && echo timed || echo batched; })
    [ $rc -eq 1 ] && [ "$n" = "FAIL:1:1:$((c - 1)):7/7:ended:0" ] &&
        grep -q "^rack default: FAIL" "$TMP/one$c.out" && ! grep -qE "exited on signal|core dumped" "$TMP/one$c/"*.log
    ok $? "one bit rank 1 received in call $c ($kind) fails the point, naming rank 1 at iteration $((c - 1)); 7 of 7 calls checked; the stage ended, no hang or signal ($rc, $n)"
done
# ... and in a control message: the point's status agreement after its
# timed iterations, the first one rank 1 receives after the point's
# first call (mode count lists the messages; flip-recv flips one):
# caught by rank 1, which received it, within seconds
MODE=count flip count "$TMP/one.yaml" cluster
at=$(sed -n 's/.*rank 1: receive \([0-9]*\): \([a-z_]*\) \([0-9]*\) bytes \([a-z]*\).*/\1 \2 \3 \4/p' \
    "$TMP/count/cluster.log" | awk '$4 == "typed" { data = 1 } data && $2 == "allgather" { print $1; exit }')
t0=$(date +%s)
MODE=flip-recv flip ctl "$TMP/one.yaml" cluster --env FC_INJECT_CALL="${at:-0}"
rc=$?
secs=$(($(date +%s) - t0))
[ -n "$at" ] && [ $rc -eq 1 ] && [ $secs -lt 60 ] && grep -q "^rack default: FAIL" "$TMP/ctl.out" &&
    grep -q "rank 1 on $H (in all_reduce int32 sum 16 KiB, the control message 'the point's status'" "$TMP/ctl.out" &&
    ! grep -q '"type":"stage_end".*"verdict":"PASS"' "$TMP/ctl/results.jsonl" &&
    ! grep -q '"type":"quarantine"' "$TMP/ctl/results.jsonl" &&
    ! grep -qE "exited on signal|core dumped" "$TMP/ctl/"*.log
ok $? "one bit rank 1 received in a control message (message $at, the point's status) fails the stage in ${secs} s, naming rank 1 and the message; no signal, nobody quarantined ($rc)"

# 3. the scaling stage: two hosts of a virtual cluster
if [ "$(id -u)" = 0 ] && command -v ip > /dev/null && command -v nsenter > /dev/null; then
    VNAME=ec$((RANDOM % 10000))
    trap 'runners/vcluster --name $VNAME down > /dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
    if runners/vcluster --name $VNAME up --racks 2 --nodes 1 > "$TMP/up.out" 2>&1; then
        VD=$(runners/vcluster --name $VNAME dir)
        sed 's/^  soak:$/  scaling:/; /^    soak:$/,$d' "$TMP/soak.yaml" > "$TMP/scaling.yaml"
        printf '    scaling:\n      max_drop_pct: 100\n' >> "$TMP/scaling.yaml"
        (. "$VD/env"
         runners/vcluster --name $VNAME exec ${VNAME}01 $FC run --hosts "$VD/hosts" \
             --racks "$VD/racks" --ppn 1 --profile "$TMP/scaling.yaml" --out "$TMP/scaling" \
             --env LD_PRELOAD="$INJ" --env FC_INJECT_HOST=${VNAME}02 --env FC_INJECT_MODE=corrupt-recv \
             --env FC_INJECT_PROGRAM=scaling --env FC_INJECT_TALLY="$TMP/scaling.tally" \
             > "$TMP/scaling.out" 2>&1)
        every scaling scaling scaling
    else
        ok 0 "# SKIP cannot build the virtual cluster: $(tail -1 "$TMP/up.out")"
    fi
else
    ok 0 "# SKIP the scaling stage needs two hosts: a virtual cluster (root, ip, nsenter)"
fi

# 4. the report, from the record alone
$FC run --np 3 --profile "$TMP/one.yaml" --out "$TMP/clean" > "$TMP/clean.out" 2>&1
rc=$?
n=$(jsonl "$TMP/clean/results.jsonl" 'my ($p) = grep { $_->{type} eq "point" } @r;
    join ",", $p->{verdict}, map { "$p->{calls}{$_}{made}/$p->{calls}{$_}{checked}" } qw(warmup timed batched)')
[ $rc -eq 0 ] && [ "$n" = "PASS,1/1,3/3,3/3" ]
ok $? "a clean point passes, its record counting 1 warm-up, 3 timed and 3 batched calls, all checked ($rc, $n)"
forge_report fewer "$TMP/clean" -pe 's/"batched":\{"checked":3/"batched":{"checked":2/ if /"type":"point"/'
rc=$?
grep -q '"batched":{"checked":2' "$TMP/fewer/results.jsonl" && [ $rc -eq 1 ] &&
    grep -q "^rack default: FAIL" "$TMP/fewer.out" &&
    grep -q "1 of 7 collective calls were made but their outputs not checked" "$TMP/fewer/summary.txt"
ok $? "a PASS whose record shows one batched call unchecked is a FAIL in the report, with the count ($rc)"
forge_report nocount "$TMP/clean" -pe 's/,"calls":\{[^}]*\}[^}]*\}[^}]*\}\}//; s/"calls":\{[^}]*\}[^}]*\}[^}]*\},// if /"type":"point"/'
rc=$?
! grep '"type":"point"' "$TMP/nocount/results.jsonl" | grep -q '"calls":{' && [ $rc -eq 1 ] &&
    grep -q "^rack default: FAIL" "$TMP/nocount.out"
ok $? "a PASS whose record has no count of its calls is a FAIL in the report ($rc)"
forge_report nocalls "$TMP/clean" -pe 's/"(made|checked)":\d+/"$1":0/g if /"type":"point"/'
rc=$?
[ $rc -eq 1 ] && grep -q "^rack default: FAIL" "$TMP/nocalls.out" &&
    grep -q "no timed call made" "$TMP/nocalls/summary.txt"
ok $? "a PASS whose record counts no call made (each of none checked) is a FAIL in the report ($rc)"
forge_report fewtimed "$TMP/clean" -pe 's/"timed":\{"checked":3,"made":3/"timed":{"checked":2,"made":2/ if /"type":"point"/'
rc=$?
grep -q '"timed":{"checked":2,"made":2' "$TMP/fewtimed/results.jsonl" && [ $rc -eq 1 ] &&
    grep -q "2 timed calls made for its 3 iterations" "$TMP/fewtimed/summary.txt"
ok $? "a PASS whose record counts fewer timed calls than its iterations is a FAIL in the report ($rc)"
done_testing
