#!/bin/bash
# gpu_agree.t - how GPU ranks fail together, on a host without a GPU: the
# nccl backend's protocol (lib/gpu/fc_gpu_agree.c: agree on every call's
# status over MPI, abort every communicator together on any failure, never
# destroy after one; a failed init is aborted) run by build/tests/gpu_agree
# on 3 ranks with the stand-in communicator of tests/standin. A rank that
# times out, sees an error or an asynchronous error, fails to enqueue,
# fails its init or a local step must not leave its peers behind: every
# rank ends, within the timeout, with the same outcome and one abort.
# Then the engine itself (the node stage) on the stand-in GPU plugin's
# host mode (tests/standin/fc_gpu_standin.c: the same protocol, the MPI
# collective for a device), a local step planted to fail on one rank: the
# failing rank really leaves its step early, goes on to the next call as
# the engine makes it, and every rank learns the failure there and aborts
# with it; before, the failing rank left for an agreement of its own and
# the stage hung until the watchdog. The stage's broadcast is NCCL's, with
# the root's send and recv apart (the stand-in's device copies, as NCCL
# does; the mpi backend's root sends from its input set), and is checked
# in the root's recv.
# lane: pinned, about 12 s (alone on a core: aborts timed against 1-5 s bounds: a neighbour's load breaks them)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
T=$BUILD/tests/gpu_agree
plan 15

# run SCENARIOS TIMEOUT: the report lines in $TMP/out. A run lasts about a
# second; one that did not end in 45 s is ended by mpirun itself, which
# prints every rank's state, and what the run said is shown with the
# failure (its process ids, for a rank that hung)
run() {
    timeout -k 10 60 mpirun --timeout 45 --report-state-on-timeout -np 3 "$T" "$1" "$2" \
        > "$TMP/out" 2> "$TMP/err"
    local rc=$?
    [ $rc -eq 0 ] || why "mpirun -np 3 $T $1 $2: exit $rc" "$(tail -20 "$TMP/out" "$TMP/err")"
}
# every rank's line matches the pattern
all() { [ "$(grep -c "$1" "$TMP/out")" -eq 3 ]; }
slowest() { sed 's/.*seconds=//' "$TMP/out" | sort -n | tail -1; }
within() { awk -v s="$(slowest)" -v lim="$1" 'BEGIN { exit !(s < lim) }'; }

run ok,ok,ok 5
all 'init=ok call1=ok call2=ok releases=2 aborts=0 destroys=1'
ok $? "all ranks well: both calls pass, every communicator destroyed, none aborted"

run ok,hang,ok 2
all 'call1=\(fail\|timeout\) call2=fail .*aborts=1 destroys=0' && within 5 &&
    grep -q 'rank 1: .*call1=timeout' "$TMP/out"
ok $? "a rank that hangs: it times out, every rank aborts once and none destroys, all within the timeout ($(slowest) s)"
grep -q 'all_reduce on stand-in GPU: no progress for 2 s; the ranks agree before aborting' "$TMP/err"
ok $? "the rank that timed out says so, with the device"

run ok,async,ok 10
all 'call1=fail call2=fail .*aborts=1 destroys=0' && within 1
ok $? "an asynchronous NCCL error on one rank: its notice ends the peers' waits, all abort together at once ($(slowest) s of a 10 s timeout)"
grep -q 'rank 1\].*remote process exited or there was a network error (stand-in)' "$TMP/err" &&
    grep -q 'rank 0\].*rank 1 of the communicator failed (fail), so this call cannot complete' "$TMP/err"
ok $? "the error is named where it happened; the peers say which rank's failure ended their wait"
FC_AGREE_NO_NOTICE=1 run ok,async,ok 2
all 'call2=fail .*aborts=1 destroys=0' && ! within 1.9 && within 5
ok $? "without the notices the peers wait out their own timeout, and still abort together ($(slowest) s)"

run error,ok,ok 2
all 'call2=fail .*aborts=1 destroys=0' && within 5
ok $? "a stream error on one rank: every rank aborts together"

run ok,ok,enqueue 30
all 'call1=fail call2=fail releases=2 aborts=1 destroys=0' && within 2
ok $? "a call one rank could not enqueue: all abort at once, nobody waits ($(slowest) s)"

run ok,initfail,ok 5
all 'init=fail call1=none call2=none releases=0 aborts=1 destroys=0'
ok $? "a failed init anywhere: every rank aborts (never destroys) and runs no call"

run ok,ok,localfail 5
all 'init=ok call1=ok call2=fail .*aborts=1 destroys=0' && within 2
ok $? "a local step that failed on one rank: the next call fails on every rank, all abort once, none destroys ($(slowest) s)"

# the node stage on the stand-in plugin: run NAME [FC_GPU_STANDIN_FAIL]. A
# stage lasts about a second; one that hangs (seen twice in CI, under the
# pinned lane: not reproduced here in 40 runs beside a CPU hog) is ended by
# mpirun at 45 s with every rank's state, shown with its last words
stage() {
    local t0=$(date +%s.%N)
    FABCERT_GPU_PLUGIN=$PWD/$BUILD/tests/libfc_gpu_standin.so FC_GPU_STANDIN=host \
        FC_GPU_STANDIN_FAIL=$2 timeout -k 10 60 mpirun --timeout 45 --report-state-on-timeout \
        -np 3 "$BUILD/suites/node" --backend nccl \
        --out "$TMP/$1" --sizes 4KiB --collectives all_reduce,reduce,broadcast_inplace,broadcast \
        --dtypes int32 --ops sum > "$TMP/$1.tap" 2> "$TMP/$1.err"
    rc=$?
    secs=$(echo "$(date +%s.%N) - $t0" | bc)
    # (mpirun's own limit exits 110; timeout's, 124 or 137)
    [ $rc -ne 110 ] && [ $rc -lt 124 ] ||
        why "node stage $1 (FC_GPU_STANDIN_FAIL=$2) did not end: exit $rc after $secs s" \
        "$(tail -25 "$TMP/$1.err")"
}
# every rank's end line matches the pattern
ends() { [ "$(grep -c "stand-in GPU plugin: rank [0-2] ended: .*$2" "$TMP/$1.err")" -eq 3 ]; }
stage sclean ""
[ $rc -eq 0 ] && [ "$(grep -c '^ok ' "$TMP/sclean.tap")" -eq 4 ] && ends sclean 'aborts=0 destroys=1'
ok $? "the engine through the stand-in plugin's protocol: a clean stage passes (broadcast's root checked in its own recv), every communicator destroyed ($rc)"
# the same clean stage through fabcert run: its checks pass, but what the
# stand-in measured is host memory, so the rack is never PASS
$FC run --out "$TMP/srun" --np 3 --stages node --backend nccl --sizes 4KiB \
    --collectives all_reduce,reduce,broadcast_inplace --dtypes int32 --ops sum \
    --env FABCERT_GPU_PLUGIN="$PWD/$BUILD/tests/libfc_gpu_standin.so" --env FC_GPU_STANDIN=host \
    > "$TMP/srun.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^stage node: PASS: 3 checks, 0 failed' "$TMP/srun.out" &&
    grep -q '^rack default: INCOMPLETE' "$TMP/srun.out" &&
    grep -q '^  INCOMPLETE rack default, node stage, gpus: the node stage was measured by the test stand-in plugin, not a GPU (its devices record names rank 0.s GPU "stand-in"; plugin .*libfc_gpu_standin.so, sha256 [0-9a-f]\{16\})$' "$TMP/srun.out" &&
    [ "$(grep -c "stand-in GPU plugin: rank [0-2] ended: .*aborts=0 destroys=1" "$TMP/srun/node.log")" -eq 3 ]
ok $? "the same clean stage through fabcert run: 3 checks pass, every communicator destroyed, and the rack is INCOMPLETE: measured by the test stand-in plugin, not a GPU ($rc)"
stage sverify rank=1,step=verify,nth=2
n=$(jsonl "$TMP/sverify/results.jsonl" 'scalar grep { $_->{type} eq "point" && $_->{verdict} ne "PASS" } @r')
[ $rc -eq 1 ] && [ "$n" -eq 4 ] && ends sverify 'calls=3 aborts=1 destroys=0' &&
    awk -v s="$secs" 'BEGIN { exit !(s < 20) }'
ok $? "a verify failing on rank 1 at its 2nd check: every rank aborts once at the next call (3 calls each), no point passes, the stage ends ($rc, $secs s)"
grep -q 'rank 1\] error: all_reduce on stand-in GPU (rank 1): a local step failed on this rank before this call' "$TMP/sverify.err" &&
    [ "$(grep -c 'rank [02]\] error: all_reduce on stand-in GPU (rank [02]): a peer failed' "$TMP/sverify.err")" -eq 2 ]
ok $? "the failing rank says its local step failed before the call; both peers that a peer failed"
stage sfill rank=2,step=fill,nth=3
calls=$(sed -n 's/.*stand-in GPU plugin: rank [0-2] ended: calls=\([0-9]*\) .*/\1/p' "$TMP/sfill.err" | sort -u)
[ $rc -eq 1 ] && ends sfill 'aborts=1 destroys=0' && [ "$(echo $calls | wc -w)" -eq 1 ] &&
    grep -q '^ok 1 - all_reduce' "$TMP/sfill.tap" && grep -q '^not ok 2 - reduce' "$TMP/sfill.tap" &&
    grep -q '^not ok 3 - broadcast_inplace' "$TMP/sfill.tap"
ok $? "a fill failing on rank 2 in the second point's inputs: that point fails on every rank before any call, the third point's first call aborts everywhere, every rank made the same $calls calls ($rc, $secs s)"
done_testing
