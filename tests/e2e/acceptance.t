#!/bin/bash
# acceptance.t - the SKU acceptance profiles end to end (tests/e2e/plan.t
# plans them):
#   - gb200-nvl72-acceptance (it has every stage of the table) runs end to
#     end on a virtual cluster of 2 racks of 1 node, its GPU stages on the
#     stand-in GPU plugin (host memory: never PASS, INCOMPLETE is right)
#     and the stand-in NVML, one file per host ("%h") putting each rack's
#     GPUs in one NVLink fabric clique; shortened by run's overrides (4 KiB,
#     one iteration, a 3 s soak, --ppn 2) and without preflight, whose
#     expectations (4 GPUs, 4 RDMA ports) no virtual node meets and which
#     would quarantine them all: every stage launches and ends, no bit is
#     wrong, the domain stages set NCCL_MNNVL_ENABLE=1 and =0 and hold each
#     rack to one clique (PASS), the rails stage skips with the reason, no
#     rack PASSes; the run prints its plan and writes plan.txt/plan.json;
#     `fabcert plan --from` puts the measured stage times beside the
#     model's (both shown);
#   - a GPU planted in another clique (its tray's stand-in NVML file) FAILs
#     its rack's NVLink domain, naming the tray.
# FC_E2E_ALL_PROFILES=1 runs the other acceptance profiles end to end too
# (minutes).
# lane: long (a minute or more: started first)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
STANDIN=$PWD/$BUILD/tests/libfc_gpu_standin.so
NVML=$PWD/$BUILD/tests/libfc_nvml_standin.so
accept=(thresholds/*-acceptance.yaml)
e2e=(thresholds/gb200-nvl72-acceptance.yaml)
[ -n "${FC_E2E_ALL_PROFILES:-}" ] && e2e=("${accept[@]}")

# ---- the acceptance profile end to end on the virtual cluster -------------
vcluster_up fca 1,1
plan $(( 4 * ${#e2e[@]} + 4 ))
# each node's stand-in GPUs (local ranks 0 and 1: PCI 1x) in its rack's clique
nvml_files() {  # nvml_files [HOST GPU CLIQUE]: every node's file; GPU GPU of HOST in CLIQUE
    local h r
    $FC check-inventory --hosts "$D/hosts" --racks "$D/racks" | grep -v '^#' |
    while read -r h r; do
        {
            echo "gpus 2"; echo "driver 580.65.06"
            for g in 0 1; do
                echo "$g.uuid GPU-$h-$g"; echo "$g.pci 00000000:1$g:00.0"; echo "$g.name StandIn"
                echo "$g.fabric.cluster 3143b15bc2cd192b28cc9b5473fb5b93"
                if [ "$h:$g" = "${1:-}:${2:-}" ]; then echo "$g.fabric.clique $3"
                else echo "$g.fabric.clique ${r#rack}"; fi
            done
        } > "$TMP/nvml.$h"
    done
}
GPU=(--env FABCERT_GPU_PLUGIN="$STANDIN" --env FC_GPU_STANDIN=host --env FABCERT_NVML_LIB="$NVML"
     --env FC_NVML_STANDIN_FILE="$TMP/nvml.%h")
SHORT=(--ppn 2 --sizes 4KiB --iters 1 --warmup 0 --soak-duration 3 --contention-phase 1)
run() {     # run OUT PROFILE [options]: inside the first node
    local out=$1 prof=$2; shift 2
    $VC --name $NAME exec ${NAME}01 $FC run --hosts "$D/hosts" --racks "$D/racks" \
        --profile "$prof" --out "$TMP/$out" "${GPU[@]}" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err"
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }
nvml_files
for p in "${e2e[@]}"; do
    b=$(basename "$p" .yaml)
    stages=$(grep '^  [a-z_]*:$' "$p" | tr -d ' :' | grep -v '^preflight$' | paste -sd,)
    t0=$(date +%s)
    run "$b" "$p" "${SHORT[@]}" --stages "$stages"
    rc=$?
    t1=$(date +%s)
    n=$(echo "$stages" | tr ',' '\n' | wc -l)
    done_n=$(rec "$b" 'scalar grep { $_->{type} eq "stage_done" } @r')
    ends=$(rec "$b" 'join " ", map { "$_->{stage}:$_->{verdict}" } grep { $_->{type} eq "stage_end" } @r')
    [ $rc -eq 1 ] && [ "$done_n" -eq "$n" ] && ! grep -q "invalid input" "$TMP/$b.out" &&
        grep -q '^plan: [0-9]* of [0-9]* stage(s) to run, about ' "$TMP/$b.out" &&
        [ -s "$TMP/$b/plan.txt" ] && [ -s "$TMP/$b/plan.json" ]
    ok $? "$b on the virtual cluster: its $n stages but preflight each launched and ended ($ends), the plan printed and written; exit $rc in $((t1 - t0)) s"
    [ $? -eq 0 ] || why "$(tail -20 "$TMP/$b.out")"
    w=$(rec "$b" 'scalar grep { ($_->{wrong} // 0) > 0 || ($_->{wrong_received} // 0) > 0 } @r')
    racks=$(grep '^rack ' "$TMP/$b.out" | cut -d: -f2 | sort | uniq -c | tr -s ' ' | paste -sd,)
    [ "$w" -eq 0 ] && ! grep -q '^rack .*: PASS' "$TMP/$b.out"
    ok $? "$b: no wrong bit anywhere, and no rack PASSes on a stand-in GPU (racks:$racks)"
    skip=$(rec "$b" 'join "", map { $_->{reason} } grep { $_->{type} eq "stage_end" && $_->{stage} eq "rails" } @r')
    echo "$skip" | grep -q 'one rank per rail\|verbs'
    ok $? "$b: the rails stage cannot run here and says why: ${skip:0:160}"
    $FC plan --profile "$p" --hosts "$D/hosts" --racks "$D/racks" "${SHORT[@]}" --stages "$stages" \
        --from "$TMP/$b" > "$TMP/$b.plan" 2>&1
    $FC plan --profile "$p" --hosts "$D/hosts" --racks "$D/racks" "${SHORT[@]}" --stages "$stages" \
        --from "$TMP/$b" --json > "$TMP/$b.pj" 2>&1
    m=$(jsonl "$TMP/$b.pj" 'scalar grep { defined $_->{measured_s} } @{$r[0]{stages}}')
    nr=$(jsonl "$TMP/$b.pj" 'scalar grep { $_->{runs} } @{$r[0]{stages}}')
    diag "$(grep -v '^            \|^  - \|^model\|^not applicable' "$TMP/$b.plan")"
    [ "$m" -eq "$nr" ] && [ "$nr" -ge $((n - 1)) ] && grep -q "measured in $TMP/$b" "$TMP/$b.plan"
    ok $? "$b: fabcert plan --from puts each stage's measured time beside the model's ($m of the $nr it plans to run)"
done

b=gb200-nvl72-acceptance
r=$(rec $b 'join " ", map { "$_->{rack}:$_->{verdict}:" . scalar(@{$_->{cliques}}) } grep { $_->{type} eq "nvlink_domain" } @r')
e=$(rec $b 'join " ", map { "$_->{stage}=$_->{env}" } grep { $_->{type} eq "stage_start" && $_->{env} } @r')
is "$r / $e" "rack1:PASS:1 rack2:PASS:1 / domain=NCCL_MNNVL_ENABLE=1 domain_net=NCCL_MNNVL_ENABLE=0" \
    "the domain stage holds each rack to one NVML clique (PASS), and the two domain stages ran with multi-node NVLink on and off"
p=$(rec $b 'join " ", sort map { "$_->{stage}:$_->{group}" } grep { $_->{type} eq "point" && $_->{stage} =~ /^domain/ && $_->{collective} eq "all_reduce" } @r')
is "$p" "domain:rack1 domain:rack2 domain_net:rack1 domain_net:rack2" "each rack's all_reduce measured in both domain stages"

# a GPU planted in another clique: its rack is not one NVLink domain
nvml_files ${NAME}02 1 9
run clique thresholds/gb200-nvl72-acceptance.yaml "${SHORT[@]}" --stages domain
r=$(rec clique 'join " ", map { "$_->{rack}:$_->{verdict}:" . ($_->{implicates} ? "$_->{implicates}{part}:$_->{implicates}{host}" : "") } grep { $_->{type} eq "nvlink_domain" } @r')
is "$r" "rack1:PASS: rack2:FAIL:nvlink:${NAME}02" "a GPU NVML puts in another clique FAILs its rack's NVLink domain, naming the tray"
grep -q "FAIL rack rack2, domain stage" "$TMP/clique.out" &&
    grep -q "rack rack2 is not one NVLink domain: 1 GPU(s) of ${NAME}02 are in clique 9" "$TMP/clique/results.jsonl"
ok $? "the summary and the record say which tray and which clique"
done_testing
