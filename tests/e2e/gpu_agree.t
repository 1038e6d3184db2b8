#!/bin/bash
# gpu_agree.t - how GPU ranks fail together, on a host without a GPU: the
# nccl backend's protocol (lib/gpu/fc_gpu_agree.c: agree on every call's
# status over MPI, abort every communicator together on any failure, never
# destroy after one; a failed init is aborted) run by build/tests/gpu_agree
# on 3 ranks with the stand-in communicator of tests/standin. A rank that
# times out, sees an error or an asynchronous error, fails to enqueue,
# fails its init or a local step must not leave its peers behind: every
# rank ends, within the timeout, with the same outcome and one abort.
. tests/e2e/tap.sh
T=$BUILD/tests/gpu_agree
plan 10

# run SCENARIOS TIMEOUT: the report lines in $TMP/out
run() { timeout 60 mpirun -np 3 "$T" "$1" "$2" > "$TMP/out" 2> "$TMP/err"; }
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
all 'init=ok call1=ok call2=ok .*aborts=1 destroys=0'
ok $? "a local step that failed on one rank: at the end every rank aborts, none destroys"
done_testing
