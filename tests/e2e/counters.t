#!/bin/bash
# counters.t - the soak stage's link counters, judged by the real stage
# program on this machine (2 ranks, a 6 s soak) reading a fixture sysfs
# tree (FC_SYSFS_ROOT, passed with --env) that the test changes while the
# soak runs, after the stage has taken its first snapshot:
#   - a clean tree whose drop counters rise: PASS, the deltas recorded;
#   - eth1 removed mid-soak (a port that vanished): the rack FAILs, the
#     failure implicates the link eth1 of this host (it was left out of the
#     deltas before);
#   - the RDMA port's counters reset to 0 mid-soak (a re-initialised port):
#     FAIL (the negative deltas passed before);
#   - symbol_error at its 16-bit maximum (65535) throughout: the delta of 0
#     proves nothing: INCOMPLETE, never PASS.
# tests/unit/counters.c covers the same rules, and the 64-bit files, on the
# fixtures alone.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
F=tests/fixtures/sysfs
H=$(hostname)
plan 10
cat > "$TMP/soak.yaml" <<'YAML'
name: soak-counters
seed: 5
stages:
  soak:
    timeout_s: 90
    warmup: 1
    iters: 3
    sizes: [256KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
    soak:
      duration_s: 6
      window_s: 2
      max_drift_pct: 1000000     # drift is not what this test is about
      nic_pattern: "eth*"
YAML

# soak NAME FIXTURE CHANGE: run the soak on a copy of FIXTURE/before; once
# the stage has started (its stage_start record, written before the first
# snapshot) and 2 s more, run CHANGE on the copy ($S)
soak() {
    local name=$1 fixture=$2 change=$3 waited=0
    S=$TMP/$name-sys
    cp -r "$F/$fixture/before" "$S"
    $FC run --out "$TMP/$name" --np 2 --profile "$TMP/soak.yaml" --env FC_SYSFS_ROOT="$S" \
        > "$TMP/$name.out" 2>&1 &
    local pid=$!
    until grep -qs '"type":"stage_start"' "$TMP/$name/results.jsonl" || [ $waited -ge 600 ]; do
        sleep 0.1; waited=$((waited + 1))
    done
    sleep 2
    eval "$change"
    wait $pid
    echo $? > "$TMP/$name.rc"
}
rec() { jsonl "$TMP/$1/results.jsonl" 'my ($c) = grep { $_->{type} eq "soak_counters" } @r; '"$2"; }

soak clean clean 'cp -r "$F/clean/after/." "$S/"'
n=$(rec clean '$c->{verdict} . " " . $c->{links}{eth0}{rx_dropped} . " " . $c->{links}{"mlx5_0/1"}{port_xmit_discards}')
[ "$(cat "$TMP/clean.rc")" = 0 ] && grep -q '^rack default: PASS' "$TMP/clean.out" && [ "$n" = "PASS 4 10" ]
ok $? "clean fixture, drops and discards rising mid-soak: PASS with the deltas recorded ($n)"

soak vanished vanished 'rm -rf "$S/class/net/eth1"'
rc=$(cat "$TMP/vanished.rc")
ok $(( rc != 1 )) "eth1 removed mid-soak: exit 1 ($rc)"
n=$(rec vanished '$c->{verdict} . " " . join(",", @{$c->{vanished}}) . " " . $c->{implicates}{part} . " " . $c->{implicates}{link} . " " . $c->{implicates}{host}')
[ "$n" = "FAIL eth1 link eth1 $H" ]
ok $? "the soak_counters record FAILs, lists eth1 as vanished and implicates link eth1 of $H ($n)"
grep -q "^rack default: FAIL" "$TMP/vanished.out" &&
    grep -q "FAIL rack default, soak stage, link $H: .*link eth1 of host $H vanished during the soak" "$TMP/vanished.out"
ok $? "the summary FAILs the rack and names the link and the host"

soak reset reset 'cp -r "$F/reset/after/." "$S/"'
rc=$(cat "$TMP/reset.rc")
n=$(rec reset '$c->{verdict} . " " . scalar(@{$c->{reset}}) . " " . $c->{implicates}{link}')
[ "$rc" = 1 ] && [ "$n" = "FAIL 3 mlx5_0/1" ]
ok $? "the RDMA port's counters reset to 0 mid-soak: FAIL, 3 counters went down, link mlx5_0/1 ($n, exit $rc)"
grep -q "symbol_error went down from 12 to 0 during the soak" "$TMP/reset.out"
ok $? "the summary says which counter went down, from what to what"

soak saturated saturated 'true'
rc=$(cat "$TMP/saturated.rc")
n=$(rec saturated '$c->{verdict} . " " . $c->{saturated}[0]{counter} . " " . $c->{saturated}[0]{bits}')
[ "$rc" = 1 ] && [ "$n" = "INCOMPLETE symbol_error 16" ]
ok $? "symbol_error saturated at 65535 throughout: INCOMPLETE, not a delta of 0 that passes ($n, exit $rc)"
grep -q '^rack default: INCOMPLETE' "$TMP/saturated.out" && ! grep -q '^rack default: PASS' "$TMP/saturated.out"
ok $? "the rack is INCOMPLETE, never PASS"
grep -q "symbol_error is saturated at 65535, the maximum of its 16-bit counter" "$TMP/saturated.out"
ok $? "and the summary says why"

# the soak really ran in every case (the verdicts are not from a stage that stopped early)
n=$(for r in clean vanished reset saturated; do
    jsonl "$TMP/$r/results.jsonl" 'scalar grep { $_->{type} eq "soak_window" } @r'; done | tr '\n' ' ')
set -- $n
[ "$1" -ge 2 ] && [ "$2" -ge 2 ] && [ "$3" -ge 2 ] && [ "$4" -ge 2 ]
ok $? "every soak ran through its windows ($n)"
done_testing
