#!/bin/bash
# plan.t - `fabcert plan` (runners/fc_plan*.c) on the shipped profiles:
# every one plans on 32 nodes in 4 racks of 8 (exit 0, a line per stage it
# names, a total; the totals shown); each -acceptance profile runs every
# stage it names, all required, and leaves out nothing but the length of
# a burn-in; the plan's figures (the domain stages' environment and
# groups, the rails, the pairs rounds, the scaling series, the soak) are
# the stage programs'; the NVLink domain stages are not applicable where
# the domain is the node; a bad profile, host list or --from directory is
# exit 2 naming the file and line. (acceptance.t runs the profiles and
# holds the estimate beside a measured run.)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
shipped=(thresholds/*.yaml)
accept=(thresholds/*-acceptance.yaml)
plan 5
printf 'gpu[001-032]\n' > "$TMP/hosts32"
printf 'r1: gpu[001-008]\nr2: gpu[009-016]\nr3: gpu[017-024]\nr4: gpu[025-032]\n' > "$TMP/racks32"
ppn_of() { sed -n 's/^ *gpus: \([0-9]*\).*/\1/p' "$1" | head -1; }
plan_json() {   # plan_json PROFILE OUT: the plan of PROFILE on the 32 nodes
    $FC plan --profile "$1" --hosts "$TMP/hosts32" --racks "$TMP/racks32" \
        --ppn "$(ppn_of "$1")" --json > "$2"
}

bad=""
for p in "${shipped[@]}"; do
    ppn=$(ppn_of "$p"); ppn=${ppn:-2}
    $FC plan --profile "$p" --hosts "$TMP/hosts32" --racks "$TMP/racks32" --ppn "$ppn" \
        > "$TMP/plan.out" 2>&1 || bad="$bad $p(exit $?)"
    n=$(grep -c '^[a-z_]* *\(mpi\|nccl\|auto\) ' "$TMP/plan.out")
    want=$(grep -c '^  [a-z_]*:$' "$p")
    [ "$n" = "$want" ] && grep -q '^total: about ' "$TMP/plan.out" || bad="$bad $p($n of $want stages)"
done
[ -z "$bad" ]
ok $? "fabcert plan: every shipped profile (${#shipped[@]}) on 32 nodes in 4 racks: a line per stage it names and a total${bad:+:$bad}"

bad=""
for p in "${accept[@]}"; do
    plan_json "$p" "$TMP/p.json" || { bad="$bad $p(exit)"; continue; }
    r=$(jsonl "$TMP/p.json" 'my $p = $r[0]; my @no = grep { !$_->{runs} || !$_->{required} } @{$p->{stages}};
        my @gaps = grep { !/^the soak runs 30m00s: a burn-in runs for hours/ && !/^rack has no floor/ } @{$p->{leaves_out}};
        @{$p->{stages}} >= 10 or push @gaps, scalar(@{$p->{stages}}) . " stages planned";
        join "; ", (map { "$_->{name} $_->{why_not}" } @no), @gaps' 2>&1)
    [ -z "$r" ] || bad="$bad $p: $r"
done
[ -z "$bad" ]
ok $? "each acceptance profile runs every stage it names, all required, and leaves out only a burn-in's length (and GB200's rack collectives beside all_reduce, which have no published floor)${bad:+:$bad}"

diag "$(for p in "${accept[@]}" thresholds/*-burnin.yaml; do
    printf '%-40s %s\n' "${p#thresholds/}" "$($FC plan --profile "$p" --hosts "$TMP/hosts32" \
        --racks "$TMP/racks32" --ppn "$(ppn_of "$p")" | grep '^total')"; done)"

plan_json thresholds/gb200-nvl72-acceptance.yaml "$TMP/gb.json"
r=$(jsonl "$TMP/gb.json" 'my %s = map { $_->{name} => $_ } @{$r[0]{stages}};
    join " ", $s{domain}{env}, $s{domain_net}{env}, $s{domain}{groups}{kind}, $s{domain}{groups}{count},
    $s{rails}{rails}{count}, $s{rails}{rails}{transport}, $s{pairs}{pairs}{rounds}, join(",", @{$s{scaling}{series}}),
    $s{soak}{soak}{duration_s}')
plan_json thresholds/h100-sxm-ib400-acceptance.yaml "$TMP/h100.json"
na=$(jsonl "$TMP/h100.json" 'join ",", map { /^(\w+):/ } @{$r[0]{not_applicable}}')
is "$r $na" "NCCL_MNNVL_ENABLE=1 NCCL_MNNVL_ENABLE=0 rack 4 4 verbs 31 1,2,4,8,16,32 1800 domain,domain_net" \
    "the plan's figures: the domain stages' env and racks, 4 rails over verbs, 31 pairs rounds, the scaling series, the soak; on H100 the domain stages are not applicable"

# ---- bad input: exit 2, the file and line --------------------------------
printf 'name: p\nstages:\n  node:\n    iterations: 3\n' > "$TMP/bad.yaml"
$FC plan --profile "$TMP/bad.yaml" > /dev/null 2> "$TMP/e1"; r1=$?
printf 'gpu[001-0x]\n' > "$TMP/badhosts"
$FC plan --profile thresholds/vcluster.yaml --hosts "$TMP/badhosts" > /dev/null 2> "$TMP/e2"; r2=$?
mkdir -p "$TMP/fakerun" && printf '{"type":"plan","inventory":{"hosts":[]}}\n{"type": stage_end\n' \
    > "$TMP/fakerun/results.jsonl"
$FC plan --profile thresholds/vcluster.yaml --from "$TMP/fakerun" > /dev/null 2> "$TMP/e3"; r3=$?
$FC plan --profile thresholds/vcluster.yaml --from "$TMP/nowhere" > /dev/null 2> "$TMP/e4"; r4=$?
[ "$r1$r2$r3$r4" = 2222 ] && grep -q "bad.yaml:4:5: unknown key 'iterations'" "$TMP/e1" &&
    grep -q "badhosts:1: bad host list" "$TMP/e2" &&
    grep -q "fakerun/results.jsonl:2: not a JSON record" "$TMP/e3" &&
    grep -q "nowhere/results.jsonl: cannot open results file: No such file" "$TMP/e4"
ok $? "bad input to plan: a profile's unknown key, a bad host list, a broken --from record, no --from run: each exit 2 with the file and line ($r1$r2$r3$r4)"
# what a --from run holds is read, never passed over: a NUL inside a
# record (it would hide the rest of the line), a plan.json that is not JSON
mkdir -p "$TMP/nulrun" "$TMP/badplan"
printf '{"type":"plan","inventory":{"hosts":[]}}\n\0{"type":"stage_end","stage":"node","seconds":100}\n' \
    > "$TMP/nulrun/results.jsonl"
$FC plan --profile thresholds/vcluster.yaml --from "$TMP/nulrun" > /dev/null 2> "$TMP/e5"; r5=$?
printf '{"type":"plan","inventory":{"hosts":[]}}\n' > "$TMP/badplan/results.jsonl"
printf '\xef\xbb\xbf{"stages": []}' > "$TMP/badplan/plan.json"
$FC plan --profile thresholds/vcluster.yaml --from "$TMP/badplan" > /dev/null 2> "$TMP/e6"; r6=$?
[ "$r5$r6" = 22 ] && grep -q "nulrun/results.jsonl:2: a NUL byte in the record" "$TMP/e5" &&
    grep -q "badplan/plan.json:1: not the plan \`fabcert run\` wrote" "$TMP/e6"
ok $? "a --from run with a NUL in a record, or a plan.json that is not JSON: exit 2, named ($r5$r6)"

done_testing
