#!/bin/bash
# profiles.t - the shipped profiles are valid and `fabcert --help` names
# each under --profile; each bad profile in
# tests/profiles/bad gets its own error naming file:line:col and exit 2
# (a name or description with a control character, which would forge a
# summary line; limits or relative rules under a stage that never applies
# them; a key the stage table says a stage never reads: sizes, iters and
# collectives under preflight, collectives and ops under pairs, backend
# under pairs and contention, counters: (link counters per interval)
# anywhere but contention, or with a key it does not have; a pairs limit for a collective or type
# other than sendrecv of int32; a limit rule that an earlier one matches
# wholly (collective: any before all_reduce); `stages:` empty or null, which `run`
# refuses; a background kind's key under another kind, which would be
# read by nothing; a GPU-NIC distance that is not one of nvidia-smi
# topo's, a NIC name that is no device name; an NVLink domain stage where
# the profile's domain is the node, an nvlink_domain that is neither node
# nor rack, among them).
. tests/e2e/tap.sh
FC=$BUILD/fabcert
declare -A expect=(
    [unknown-key]="unknown-key.yaml:5:5: unknown key 'iterations' in stage 'node'"
    [wrong-type]="wrong-type.yaml:4:12: 'sizes' must be a list"
    [negative-limit]="negative-limit.yaml:6:25: 'min_busbw_gbps' is -1; it must be between 0"
    [malformed]="malformed.yaml:5:1: malformed YAML: flow sequence without a closing bracket"
    [not-utf8]="not-utf8.yaml:3:10: not UTF-8 text (byte 0xf9): a profile is YAML, which is UTF-8"
    [unknown-stage]="unknown-stage.yaml:3:3: unknown key 'nodes' in 'stages'"
    [unknown-collective]="unknown-collective.yaml:4:31: unknown name 'allreduce' in 'collectives'"
    [bad-size]="bad-size.yaml:4:19: 'sizes' must be a positive size"
    [bad-bool]="bad-bool.yaml:4:15: 'required' must be true or false, not 'maybe'"
    [zero-timeout]="zero-timeout.yaml:4:16: 'timeout_s' is 0"
    [limit-unknown-key]="limit-unknown-key.yaml:6:9: unknown key 'min_busbw' in a limit rule"
    [no-name]="no-name.yaml:1:1: the profile has no 'name'"
    [empty]="empty.yaml:1:1: the profile is empty"
    [relative-range]="relative-range.yaml:5:29: 'max_below_median_pct' is 150"
    [soak-short-timeout]="soak-short-timeout.yaml:3:3: stage 'soak': timeout_s (100) must exceed soak.duration_s (3600) by at least 60 s"
    [soak-unknown-key]="soak-unknown-key.yaml:6:7: unknown key 'duration' in 'soak'"
    [soak-in-node]="soak-in-node.yaml:5:5: 'soak' belongs in stage 'soak', not in stage 'node'"
    [contention-in-node]="contention-in-node.yaml:6:5: 'contention' belongs in stage 'contention', not in stage 'node'"
    [expect-in-soak]="expect-in-soak.yaml:7:5: 'expect' belongs in stage 'preflight', not in stage 'soak'"
    [name-newline]="name-newline.yaml:1:8: 'name' holds a control character (byte 0x0a at offset 5)"
    [description-control]="description-control.yaml:2:15: 'description' holds a control character (byte 0x0d"
    [limits-in-preflight]="limits-in-preflight.yaml:5:5: 'limits' in stage 'preflight' would never be applied"
    [limits-in-contention]="limits-in-contention.yaml:7:5: 'limits' in stage 'contention' would never be applied"
    [relative-in-contention]="relative-in-contention.yaml:5:5: 'relative' in stage 'contention' would never be applied"
    [relative-in-preflight]="relative-in-preflight.yaml:4:5: 'relative' in stage 'preflight' would never be applied"
    [relative-in-cluster]="relative-in-cluster.yaml:5:5: 'relative' in stage 'cluster' would never be applied: the stage judges one group"
    [stages-empty]="stages-empty.yaml:3:1: 'stages' names no stage"
    [stages-null]="stages-null.yaml:3:1: 'stages' must be a mapping"
    [soak-one-window]="soak-one-window.yaml:7:17: 'window_s' (6) leaves fewer than 3 windows in soak.duration_s (10): drift must last confirm_windows (2) windows beside at least one other"
    [min-background-zero]="min-background-zero.yaml:6:27: 'min_background_pct' is 0: the background load must be proven"
    [bad-background-hosts]="bad-background-hosts.yaml:5:25: 'background_hosts': range '04-01' runs backwards"
    [backend-in-pairs]="backend-in-pairs.yaml:5:5: 'backend' in stage 'pairs' would never be applied: the pairs stage measures the network between hosts and always runs on mpi"
    [collectives-in-pairs]="collectives-in-pairs.yaml:6:5: 'collectives' in stage 'pairs' would never be applied: the pairs stage measures sendrecv of int32"
    [ops-in-pairs]="ops-in-pairs.yaml:5:5: 'ops' in stage 'pairs' would never be applied"
    [sizes-in-preflight]="sizes-in-preflight.yaml:5:5: 'sizes' in stage 'preflight' would never be applied: the preflight stage measures no collective"
    [iters-in-preflight]="iters-in-preflight.yaml:5:5: 'iters' in stage 'preflight' would never be applied"
    [collectives-in-preflight]="collectives-in-preflight.yaml:5:5: 'collectives' in stage 'preflight' would never be applied"
    [pairs-limit-collective]="pairs-limit-collective.yaml:8:21: a limit rule for collective 'all_reduce' in stage 'pairs' would never be applied: the pairs stage judges sendrecv of int32 alone"
    [pairs-limit-dtype]="pairs-limit-dtype.yaml:6:16: a limit rule for dtype 'float32' in stage 'pairs' would never be applied"
    [counters-in-scaling]="counters-in-scaling.yaml:5:5: 'counters' in stage 'scaling' would never be applied: the scaling stage reads no link counters"
    [counters-unknown-key]="counters-unknown-key.yaml:5:28: unknown key 'pattern' in 'counters' (expected one of: read, nic_pattern, max_errors, max_drops, max_retries, traffic)"
    [overlap-in-cluster]="overlap-in-cluster.yaml:5:5: 'overlap' belongs in stage 'overlap', not in stage 'cluster'"
    [collectives-in-overlap]="collectives-in-overlap.yaml:5:5: 'collectives' in stage 'overlap' would never be applied: the overlap stage measures all_reduce of float32 sum"
    [scaling-in-cluster]="scaling-in-cluster.yaml:5:5: 'scaling' belongs in stage 'scaling', not in stage 'cluster'"
    [relative-in-scaling]="relative-in-scaling.yaml:5:5: 'relative' in stage 'scaling' would never be applied: the scaling stage compares each node count of its series with the one before"
    [scaling-unknown-key]="scaling-unknown-key.yaml:5:15: unknown key 'max_drop' in 'scaling' (expected one of: max_drop_pct, max_first_drop_pct)"
    [limit-shadowed]="limit-shadowed.yaml:8:9: this limit rule would never be applied: the rule at line 6, column 9, before it, matches every point it matches"
    [affinity-distance]="affinity-distance.yaml:5:40: 'max_distance' must be PIX, PXB, PHB, NODE or SYS, not 'FAR'"
    [affinity-map-nic]="affinity-map-nic.yaml:8:28: 'map': GPU 0000:3b:00.0 must map to a NIC's device name"
    [min-max-only]="min-max-only.yaml:6:11: stage 'cluster' sweeps only reductions by min or max: each element keeps one rank's contribution"
    [bg-key-other-kind]="bg-key-other-kind.yaml:5:43: unknown key 'targets' in tenant (expected one of: block, rate_mbps, duty, period_s, pattern)"
    [domain-without-rack]="domain-without-rack.yaml:4:3: stage 'domain' measures an NVLink domain that spans nodes, and the profile's nvlink_domain is node"
    [nvlink-domain-bad]="nvlink-domain-bad.yaml:2:16: 'nvlink_domain' must be node or rack, not 'pod'"
)
shipped=(thresholds/*.yaml)
plan $(( 2 * ${#shipped[@]} + 2 * ${#expect[@]} + 5 ))
$FC --help > "$TMP/help"
for p in "${shipped[@]}"; do
    check "shipped profile $p is valid" $FC check-profile "$p"
    grep -q " ${p#thresholds/} " "$TMP/help"
    ok $? "fabcert --help names ${p#thresholds/} under --profile"
done
for name in $(printf '%s\n' "${!expect[@]}" | sort); do
    timeout -k 5 20 $FC check-profile tests/profiles/bad/$name.yaml > "$TMP/out" 2> "$TMP/err"
    rc=$?
    ok $(( rc != 2 )) "$name.yaml exits 2 (got $rc)"
    grep -qF "${expect[$name]}" "$TMP/err"
    ok $? "$name.yaml: error says: ${expect[$name]}"
    [ $? -eq 0 ] || why "stderr was:" "$(cat "$TMP/err")"
done
$FC check-profile /nonexistent/profile.yaml 2> "$TMP/err"
ok $(( $? != 2 )) "a missing profile exits 2"
grep -q "/nonexistent/profile.yaml: cannot open profile: No such file" "$TMP/err"
ok $? "a missing profile is named with the system's reason"
# the stage program itself rejects a bad profile with exit 2 and writes no results
mpirun -np 2 $BUILD/suites/node --profile tests/profiles/bad/unknown-key.yaml \
    --out "$TMP/stage" > "$TMP/tap" 2> "$TMP/err"
ok $(( $? != 2 )) "the node stage exits 2 on a bad profile"
[ ! -e "$TMP/stage/results.jsonl" ] && ! grep -q '^ok' "$TMP/tap"
ok $? "and leaves no results and no 'ok' that could pass for a certificate"
# the same min/max-only sweep given on the command line over a profile that
# sweeps sums: refused by the stage program, the run exits 2, no verdict
$BUILD/fabcert run --out "$TMP/mm" --np 2 --stages node --collectives all_reduce \
    --ops max,min > "$TMP/mm.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "leave stage 'node' sweeping only reductions by min or max" "$TMP/mm.out" &&
    ! grep -q '^verdict: PASS' "$TMP/mm.out"
ok $? "--collectives all_reduce --ops max,min is refused: exit $rc, $(grep -m1 'sweeping only' "$TMP/mm.out" | cut -c1-80)"
done_testing
