#!/bin/bash
# checker_faults.t - the checker without a poison, on this
# machine (one host, 3 ranks), faults planted from outside by the MPI
# injector (tests/inject):
#   - a clean run of reduce (root rotated) and the in-place collectives
#     passes, with per-iteration and batched busbw in every record, a sum
#     in place's too (each call of the batch has an output of its own,
#     checked after it), and every call counted made and checked;
#   - a transport whose calls do nothing (mode noop): every point FAILs
#     with wrong elements (the previous output is the other input set's);
#   - a transport that re-sends the previous call's data (mode stale):
#     every point of every out-of-place collective FAILs, caught at the
#     first call that sent stale data;
#   - reduce with every root: a bit flipped in the root's output at the
#     iteration rank 2 is root is caught on rank 2, and a flip in a
#     non-root's untouched recv is caught as a write where none belongs,
#     by the engine's self-test and by the injector's scribble (a write by
#     the call itself, after the rank's own turn as root);
#   - broadcast (the mpi backend: the root's output is the input set it
#     sent): a bit flipped there by the self-test is one wrong element, on
#     the root at that iteration; flipped back after the check, it is not
#     sent again by the batch (root 0, the same input set);
#   - the in-place variants catch a flipped bit like the others (all four;
#     broadcast_inplace's at root 1), and a broadcast in place whose root 2
#     sends a flipped bit (injector) is caught on the ranks that got it.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
INJ=$PWD/$BUILD/libfc_inject.so
H=$(hostname)
plan 13
cat > "$TMP/ck.yaml" <<'YAML'
name: checker-faults
seed: 5
stages:
  node:
    required: true
    timeout_s: 120
    warmup: 1
    iters: 4
    sizes: [64KiB]
    collectives: [all_reduce, reduce, broadcast, all_reduce_inplace, all_gather_inplace,
                  reduce_scatter_inplace, broadcast_inplace]
    dtypes: [int32, bfloat16]
    ops: [sum]
YAML
run() { local out=$1; shift; $FC run --np 3 --profile "$TMP/ck.yaml" --out "$TMP/$out" "$@" \
            > "$TMP/$out.out" 2>&1; }
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }

run clean
rc=$?
n=$(rec clean 'scalar grep { $_->{type} eq "point" && $_->{verdict} eq "PASS" && $_->{wrong} == 0 } @r')
ok $(( rc != 0 || n != 14 )) "reduce, broadcast and the in-place collectives pass clean ($rc, $n of 14)"
n=$(rec clean 'scalar grep { my $c = $_->{calls}; $_->{type} eq "point" &&
    $_->{batched}{busbw_gbps} > 0 && $_->{batched}{calls} == 4 &&
    $c->{warmup}{checked} == 1 && $c->{timed}{checked} == 4 && $c->{batched}{checked} == 4 &&
    !grep { $c->{$_}{made} != $c->{$_}{checked} } keys %$c } @r')
ok $(( n != 14 )) "every record has its batched busbw beside the per-iteration one (in place too, a sum's included), and its 1 + 4 + 4 calls made and checked ($n)"

run noop --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H --env FC_INJECT_MODE=noop
rc=$?
n=$(rec noop 'scalar grep { $_->{type} eq "point" && $_->{verdict} eq "FAIL" && $_->{wrong} > 0 } @r')
ok $(( rc != 1 || n != 14 )) "calls that write nothing: every point FAILs with wrong elements ($rc, $n of 14)"

# every out-of-place collective (in place, MPI_IN_PLACE leaves the
# injector no send buffer of its own to re-send)
OOP=all_reduce,all_gather,reduce_scatter,broadcast,all_to_all,sendrecv,reduce
run stale --collectives $OOP --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H \
    --env FC_INJECT_MODE=stale
rc=$?
n=$(rec stale 'scalar grep { $_->{type} eq "point" && $_->{verdict} eq "FAIL" && $_->{wrong} > 0 } @r')
ok $(( rc != 1 || n != 14 )) "a transport re-sending the previous call's data: every out-of-place collective FAILs, both types ($rc, $n of 14)"
n=$(rec stale 'my ($p) = grep { $_->{type} eq "point" && $_->{collective} eq "all_reduce" } @r;
    $p->{first_mismatch}{iteration}')
# a broadcast's root re-sends what it sent at its own previous turn as
# root, 3 iterations before: rank 0, the first bad rank named, gets rank
# 1's at iteration 4 (ranks 1 and 2 rank 0's at iteration 3)
m=$(rec stale 'join ",", map { "$_->{collective}:$_->{first_mismatch}{iteration}" }
    grep { $_->{type} eq "point" &&
           !($_->{first_mismatch}{iteration} <= ($_->{collective} eq "broadcast" ? 4 : 1)) } @r')
[ "$n" = 1 ] && [ -z "$m" ]
ok $? "caught at the first call that sent stale data: all_reduce at iteration 1 ($n), none later than 1 (broadcast: 4) (${m:-none})"

# reduce, every root: iterations 0..4 have roots 0, 1, 2, 0, 1
run root --collectives reduce --dtypes int32 --selftest-corrupt rank=2,iter=2,index=9,coll=reduce
rc=$?
n=$(rec root 'my ($p) = grep { $_->{type} eq "point" } @r; my $m = $p->{first_mismatch};
    join ":", $m->{rank}, $m->{iteration}, $m->{index}, $p->{wrong}')
ok $(( rc != 1 )) "reduce: a flip in rank 2's output when it is the root exits 1 ($rc)"
[ "$n" = "2:2:9:1" ]
ok $? "and is found on rank 2, iteration 2, element 9, one element ($n)"
run nonroot --collectives reduce --dtypes int32 --selftest-corrupt rank=1,iter=0,index=3,coll=reduce
n=$(rec nonroot 'my ($p) = grep { $_->{type} eq "point" } @r; my $m = $p->{first_mismatch};
    join ":", $m->{rank}, $m->{iteration}, $m->{index}, $p->{verdict}')
[ "$n" = "1:0:3:FAIL" ]
ok $? "reduce: a change in a non-root's recv (which the call must not write) is caught on rank 1 ($n)"
# broadcast's root 0 at iteration 0 flips a bit of its output, its input
# set 0: one element; left there, the batch (root 0, set 0) would send it
# to ranks 1 and 2 and rank 0 would find it again
run bcroot --collectives broadcast --dtypes int32 --selftest-corrupt rank=0,iter=0,index=9,coll=broadcast
n=$(rec bcroot 'my ($p) = grep { $_->{type} eq "point" } @r; my $m = $p->{first_mismatch};
    join ":", $m->{rank}, $m->{iteration}, $m->{index}, $p->{wrong}, $p->{verdict}')
[ "$n" = "0:0:9:1:FAIL" ]
ok $? "broadcast: a flip in root 0's output (its input set) at iteration 0 is one element, on rank 0 ($n)"
# the transport writes there (injector, from outside): rank 1's third call
# off the root is iteration 3, after its turn as root at iteration 1; the
# known byte set once before the warm-up must still be there to catch it
run scribble --collectives reduce --dtypes int32 --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H \
    --env FC_INJECT_RANK=1 --env FC_INJECT_MODE=scribble --env FC_INJECT_COLL=reduce \
    --env FC_INJECT_CALL=3 --env FC_INJECT_TIMES=1 --env FC_INJECT_INDEX=5
n=$(rec scribble 'my ($p) = grep { $_->{type} eq "point" } @r; my $m = $p->{first_mismatch};
    join ":", $m->{rank}, $m->{iteration}, $m->{index}, $p->{verdict}')
[ "$n" = "1:3:5:FAIL" ]
ok $? "reduce: a transport writing a non-root's recv at iteration 3 is caught there, on rank 1, element 5 ($n)"

# in place, a flip like any other; at iteration 1 rank 1 is
# broadcast_inplace's root and flips its own output
run inplace --collectives all_reduce_inplace,all_gather_inplace,reduce_scatter_inplace,broadcast_inplace \
    --dtypes int32 --selftest-corrupt rank=1,iter=1
rc=$?
n=$(rec inplace 'join ",", map { "$_->{first_mismatch}{rank}:$_->{first_mismatch}{iteration}:$_->{wrong}" }
    grep { $_->{type} eq "point" } @r')
ok $(( rc != 1 )) "in place: a flipped bit exits 1 ($rc)"
[ "$n" = "1:1:1,1:1:1,1:1:1,1:1:1" ]
ok $? "and is found on rank 1 at iteration 1, one element, in all_reduce, all_gather, reduce_scatter and broadcast (rank 1 the root) in place ($n)"
# broadcast in place from root 2, corrupted by the sender (injector): rank
# 2's third MPI_Bcast is iteration 2, its turn as root; ranks 0 and 1
# receive the flipped element
run bcast2 --collectives broadcast_inplace --dtypes int32 --env LD_PRELOAD=$INJ \
    --env FC_INJECT_HOST=$H --env FC_INJECT_RANK=2 --env FC_INJECT_MODE=corrupt-send \
    --env FC_INJECT_COLL=bcast --env FC_INJECT_CALL=3 --env FC_INJECT_TIMES=1 \
    --env FC_INJECT_INDEX=7
n=$(rec bcast2 'my ($p) = grep { $_->{type} eq "point" } @r; my $m = $p->{first_mismatch};
    join ":", $m->{rank}, $m->{iteration}, $m->{index}, $p->{bad_ranks}, $p->{wrong}, $p->{verdict}')
[ "$n" = "0:2:7:2:2:FAIL" ]
ok $? "broadcast in place, root 2 sending a flipped bit: found at iteration 2, element 7, on both other ranks ($n)"
done_testing
