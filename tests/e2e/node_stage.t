#!/bin/bash
# node_stage.t - the node stage under mpirun on 4 ranks: a clean run passes
# every point and records it; a planted bit flip in each collective fails
# that collective's points with exit 1, a `not ok` naming the rank, and a
# results record naming the rank, host, iteration and element.
# lane: pinned, about 32 s (the full local profile on 4 ranks of 2 cores, within its limits)
. tests/e2e/tap.sh
NODE=$BUILD/suites/node
COLLS="all_reduce all_gather reduce_scatter broadcast all_to_all sendrecv"
plan $(( 6 + 4 * 6 ))

mpirun -np 4 $NODE --out "$TMP/clean" > "$TMP/clean.tap" 2> "$TMP/clean.err"
ok $? "a clean run of the full local profile on 4 ranks exits 0"
n_ok=$(grep -c '^ok ' "$TMP/clean.tap"); n_not=$(grep -c '^not ok' "$TMP/clean.tap")
plan_n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$TMP/clean.tap")
[ "$n_ok" -eq "$plan_n" ] && [ "$n_not" -eq 0 ] && [ "$plan_n" -eq 252 ]
ok $? "all $plan_n planned points are ok ($n_ok ok, $n_not not ok)"
res="$TMP/clean/results.jsonl"
[ "$(jsonl "$res" 'scalar grep { $_->{type} eq "point" && $_->{verdict} eq "PASS" && $_->{wrong} == 0 && $_->{busbw_gbps} > 0 } @r')" -eq 252 ]
ok $? "results.jsonl holds 252 PASS point records with wrong=0 and a bandwidth"
[ "$(jsonl "$res" 'my @e = grep { $_->{type} eq "stage_end" } @r; $e[0]{verdict}')" = PASS ]
ok $? "results.jsonl ends the stage with verdict PASS"
jsonl "$res" 'my ($p) = grep { $_->{type} eq "point" } @r; join(",", map { defined $p->{$_} ? 1 : 0 } qw(run_id stage collective backend dtype op bytes ranks hosts iters time_us algbw_gbps busbw_gbps arrival wrong digest_ranks_agree digest_reps_agree limit verdict profile_sha256))' > "$TMP/fields"
! grep -q 0 "$TMP/fields"
ok $? "every point record has the fields a verdict is rebuilt from"
mpirun -np 4 $NODE --iters 3 --warmup 1 --sizes 8KiB --collectives all_reduce \
    --dtypes float32 --ops sum --out "$TMP/small" > "$TMP/small.tap"
[ $? -eq 0 ] && [ "$(jsonl "$TMP/small/results.jsonl" 'my ($p) = grep { $_->{type} eq "point" } @r; "$p->{iters} $p->{warmup} $p->{bytes} $p->{count}"')" = "3 1 8192 2048" ]
ok $? "command-line overrides of iterations, sizes, collectives, types and ops apply"

rank=2
for coll in $COLLS; do
    out="$TMP/flip-$coll"
    mpirun -np 4 $NODE --selftest-corrupt rank=$rank,iter=3,index=17,bit=5,coll=$coll \
        --dtypes int32,bfloat16 --sizes 4KiB --ops sum,max --out "$out" > "$out.tap" 2> "$out.err"
    rc=$?
    ok $(( rc != 1 )) "$coll: a flipped bit on rank $rank exits 1 (got $rc)"
    grep -q "^not ok .*$coll .*first on rank $rank (host $(hostname))" "$out.tap"
    ok $? "$coll: a 'not ok' names rank $rank and its host"
    bad=$(jsonl "$out/results.jsonl" 'join(" ", map { "$_->{first_mismatch}{rank}:$_->{first_mismatch}{index}:$_->{first_mismatch}{iteration}:$_->{wrong}" } grep { $_->{type} eq "point" && $_->{verdict} eq "FAIL" } @r)')
    want=$(jsonl "$out/results.jsonl" 'scalar grep { $_->{type} eq "point" && $_->{collective} eq "'$coll'" } @r')
    [ -n "$bad" ] && [ "$(echo $bad | tr ' ' '\n' | sort -u)" = "$rank:17:3:1" ] && [ "$(echo $bad | wc -w)" -eq "$want" ]
    ok $? "$coll: every $coll point fails with exactly 1 wrong element at rank $rank, element 17, iteration 3 ($bad)"
    [ "$(jsonl "$out/results.jsonl" 'scalar grep { $_->{type} eq "point" && $_->{collective} ne "'$coll'" && $_->{verdict} ne "PASS" } @r')" -eq 0 ]
    ok $? "$coll: the other collectives still pass"
done
done_testing
