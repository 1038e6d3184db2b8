#!/bin/bash
# rules_apply.t - rules that used to not apply without saying so, each
# planted on this machine:
#   - the size a limit sees: all_gather of 1 MiB on 3 ranks moves 1048572
#     bytes, and a limit from `min_bytes: 1MiB` up still judges it (the
#     requested size, as the relative rule always used);
#   - a limit that could not judge (busbw of a one-rank all_reduce) is said
#     "not applied", with why, in the HTML (no threshold drawn), JUnit and
#     the summary, never shown as a limit that judged;
#   - max_wrong: wrong bits are never tolerated; a profile that says
#     otherwise is refused (file:line:col, exit 2);
#   - a foreground point of the contention stage that failed (the fault
#     injector makes one MPI_Allreduce of the foreground return an error)
#     is FAIL, never a slowdown of 0 that passes; the same run without the
#     fault passes;
#   - --selftest-corrupt aimed at a background rank of the contention stage
#     (which the self-test never acts on), or at a rank the stage does not
#     have, is refused, exit 2, not a PASS of a self-test that did nothing;
#   - a background generator that logged an error while it ran (storage_dir
#     on a 1 MiB tmpfs, in a private mount namespace: the writes fail with
#     ENOSPC after the first blocks) leaves the measurement INCOMPLETE with
#     the error in the record, though it reached min_background_pct (needs
#     root for the mount, skipped otherwise).
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 12
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }    # rec OUT PERL-EXPR

# 1. the size a limit sees
cat > "$TMP/size.yaml" <<'YAML'
name: size-rule
seed: 3
stages:
  node:
    timeout_s: 60
    warmup: 1
    iters: 2
    sizes: [1MiB]
    collectives: [all_gather]
    dtypes: [int32]
    limits:
      - collective: all_gather
        min_bytes: 1MiB
        min_busbw_gbps: 100000
YAML
$FC run --out "$TMP/size" --np 3 --profile "$TMP/size.yaml" > "$TMP/size.out" 2>&1
rc=$?
n=$(rec size 'my ($p) = grep { $_->{type} eq "point" } @r; join " ", $p->{bytes}, $p->{requested_bytes},
    $p->{limit} ? $p->{limit}{line} : "none", $p->{verdict}')
[ $rc -eq 1 ] && [ "$n" = "1048572 1048576 12 FAIL" ]
ok $? "a 'min_bytes: 1MiB' limit judges all_gather of 1 MiB on 3 ranks (1048572 bytes moved) ($rc: $n)"
grep -q "busbw .* is below the limit 100000.000 GB/s (profile line 12)" "$TMP/size.out"
ok $? "and the failure names the limit and its line"

# 1b. a limit that could not judge is said so in every report, never drawn as judging
cat > "$TMP/onerank.yaml" <<'YAML'
name: one-rank
seed: 3
stages:
  node:
    timeout_s: 60
    warmup: 1
    iters: 2
    sizes: [1MiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
    limits:
      - collective: any
        min_busbw_gbps: 1000
YAML
$FC run --out "$TMP/onerank" --np 1 --profile "$TMP/onerank.yaml" > "$TMP/onerank.out" 2>&1
rc=$?
H=$TMP/onerank/report/rack-default.html
why='busbw &gt;= 1000 GB/s (profile line 13): the bus factor of all_reduce on 1 rank is 0, so busbw says nothing'
[ $rc -eq 0 ] && grep -q "<span class=\"INCOMPLETE\">not applied</span>: $why" "$H" &&
    ! grep -q '&ge; 1000 GB/s' "$H" && ! grep -q 'threshold (min busbw)' "$H" &&
    grep -q "<system-out>not applied: $why" "$TMP/onerank/junit.xml" &&
    grep -q "^  note: rack default, node stage: a rule was not applied to 1 of 1 check(s) .*first: busbw >= 1000 GB/s (profile line 13): the bus factor of all_reduce on 1 rank is 0" "$TMP/onerank/summary.txt"
ok $? "a one-rank all_reduce's busbw limit is shown not applied, with why, in the HTML, JUnit and summary ($rc)"

# 2. max_wrong is 0 or the profile is refused
sed 's/^    iters: 2$/    iters: 2\n    max_wrong: 5/' "$TMP/size.yaml" > "$TMP/wrong.yaml"
$FC check-profile "$TMP/wrong.yaml" > "$TMP/wrong.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "wrong.yaml:8:16: 'max_wrong' is 5; wrong bits are never tolerated, its only value is 0" "$TMP/wrong.out"
ok $? "a profile that tolerates wrong bits is refused with file:line:col, exit 2 ($rc)"
sed 's/^    iters: 2$/    iters: 2\n    max_wrong: 0/' "$TMP/size.yaml" > "$TMP/zero.yaml"
$FC check-profile "$TMP/zero.yaml" > /dev/null 2>&1
ok $? "max_wrong: 0 still loads"

# 3. a failed foreground point of the contention stage
cat > "$TMP/cont.yaml" <<'YAML'
name: contention-local
seed: 7
stages:
  contention:
    timeout_s: 60
    warmup: 1
    iters: 3
    sizes: [64KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
    contention:
      scope: cluster
      max_slowdown: 50
      min_background_pct: 10
      phase_s: 0.5
      foreground_ranks_per_node: 1
      background_ranks_per_node: 1
      storage_dir: /var/tmp
      storage_file: {block: 1MiB, rate_mbps: 10}
YAML
inject=(--env LD_PRELOAD=$PWD/$BUILD/libfc_inject.so --env FC_INJECT_HOST=$(hostname)
        --env FC_INJECT_PROGRAM=contention --env FC_INJECT_COLL=allreduce
        --env FC_INJECT_RANK=0 --env FC_INJECT_CALL=6)
$FC run --out "$TMP/cclean" --np 2 --profile "$TMP/cont.yaml" > "$TMP/cclean.out" 2>&1
rc=$?
n=$(rec cclean 'scalar grep { $_->{type} eq "contention" && $_->{verdict} eq "PASS" && $_->{slowdown} > 0 } @r')
[ $rc -eq 0 ] && [ "$n" = 1 ]
ok $? "without the fault the contention stage passes with a slowdown above 0 ($rc, $n)"
$FC run --out "$TMP/cfail" --np 2 --profile "$TMP/cont.yaml" "${inject[@]}" \
    --env FC_INJECT_MODE=error > "$TMP/cfail.out" 2>&1
rc=$?
grep -q "returning MPI_ERR_OTHER at allreduce" "$TMP/cfail/contention.log"
ok $? "the injector made one foreground all_reduce return an error"
[ $rc -eq 1 ] && grep -q "^rack default: FAIL" "$TMP/cfail.out" &&
    grep -q "the foreground point failed in the .* phase on the group of host $(hostname) (fail): no slowdown can be measured" "$TMP/cfail.out"
ok $? "a failed foreground point FAILs the stage and the rack, and says why ($rc)"
n=$(rec cfail 'scalar grep { $_->{type} eq "contention" && $_->{verdict} eq "PASS" } @r')
ok $(( n != 0 )) "no contention record of that point passes ($n)"
# 4. a self-test aimed at a background rank would never fire
$FC run --out "$TMP/cbgself" --np 2 --profile "$TMP/cont.yaml" --selftest-corrupt rank=1,iter=1 \
    > "$TMP/cbgself.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "selftest-corrupt rank=1: rank 1 (host $(hostname)) is a background rank of the contention stage" "$TMP/cbgself.out" &&
    ! grep -q '^rack default: PASS' "$TMP/cbgself.out"
ok $? "--selftest-corrupt on a background rank is refused by the contention stage, exit 2, naming rank and host ($rc)"
$FC run --out "$TMP/farself" --np 2 --stages node --sizes 4KiB --collectives all_reduce \
    --selftest-corrupt rank=5,iter=1 > "$TMP/farself.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "a self-test on rank 5: the node stage has ranks 0 to 1 only" "$TMP/farself.out" &&
    ! grep -q '^rack default: PASS' "$TMP/farself.out"
ok $? "--selftest-corrupt on a rank the stage does not have is refused, exit 2, not passed ($rc)"

# 5. a generator that failed while it ran: its load is not proven
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
    mkdir -p "$TMP/small"
    sed "s#storage_dir: /var/tmp#storage_dir: $TMP/small#; s#rate_mbps: 10}#rate_mbps: 10, direct: false}#" \
        "$TMP/cont.yaml" > "$TMP/enospc.yaml"
    unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$TMP/small' &&
        $FC run --out '$TMP/enospc' --np 2 --profile '$TMP/enospc.yaml'" > "$TMP/enospc.out" 2>&1
    rc=$?
    n=$(rec enospc 'my ($c) = grep { $_->{type} eq "contention" } @r; my $b = $c->{background}{storage_file};
        sprintf "%s %d %s", $c->{verdict}, $b->{achieved_mbps} >= 1 ? 1 : 0, $b->{error} // "none"')
    [ $rc -eq 1 ] && [[ "$n" == "INCOMPLETE 1 storage_dir $TMP/small on host "*"No space left on device" ]] &&
        grep -q "background storage_file logged an error (it reached .*No space left on device" "$TMP/enospc.out"
    ok $? "a generator that logged an error is INCOMPLETE with the error, though it moved its share ($rc: $n)"
else
    echo "ok $((FC_TESTS_RUN += 1)) # SKIP needs root and a private mount namespace for a small tmpfs"
fi
done_testing
