#!/bin/bash
# overlap_gpu.t - the overlap stage's cases judged on bits and rules, not
# on times (so they run in the parallel lanes; the timed ones are
# overlap.t's, alone), on this machine with fabcert run:
#   - the GPU form (backend: nccl) through the stand-in GPU plugin
#     (tests/standin: the mpi backend under the nccl protocol, CPU GEMMs on
#     a host thread for the burn): it measures end to end (the three
#     times, the calibrated GEMM count, every output checked) and certifies
#     nothing: the rack is never PASS and the report names the stand-in;
#     a wrong C planted in the stand-in's burn (FC_GPU_STANDIN_GEMM_FLIP:
#     its 6th batch, iteration 1's GEMMs beside the all_reduce; batches 1
#     and 2 calibrate) and a bit flipped in the together phase's all_reduce are FAIL naming
#     rank 1, its host and GPU; a GPU wrong the same way from its first
#     GEMM on (every C of rank 1 flipped: its own comparison sees nothing)
#     differs from the other GPU's first C: FAIL naming both; without the
#     plugin the stage is skipped
#     with the reason (INCOMPLETE); the report re-judges the nccl record
#     (its overlap_pct forged below the limit under a forged PASS: FAIL)
#     and holds it to the plan (deleted and recounted: INCOMPLETE).
#   - one rank (--np 1) moves nothing over any transport: INCOMPLETE, no
#     part implicated.
. tests/e2e/tap.sh
. tests/e2e/overlap.sh
FC=$BUILD/fabcert
plan 6
H=$(hostname)
profile "$TMP/waits.yaml" 32MiB 10 5 1
profile "$TMP/gpu.yaml" 4MiB 5 3 1
profile "$TMP/gpu1.yaml" 4MiB 5 1 0
perl -pi -e 's/^    timeout_s: 60$/    timeout_s: 60\n    backend: nccl/; s/min_overlap_pct: 50/min_overlap_pct: 0/' "$TMP/gpu.yaml" "$TMP/gpu1.yaml"
SI="--env FABCERT_GPU_PLUGIN=$PWD/$BUILD/tests/libfc_gpu_standin.so --env FC_GPU_STANDIN=host"

$FC run --out "$TMP/one" --np 1 --profile "$TMP/waits.yaml" > "$TMP/one.out" 2>&1
rc=$?
n=$(rec one 'my ($o) = grep { $_->{type} eq "overlap" } @r; "$o->{verdict} " . (defined $o->{implicates} ? "implicated" : "none") . ": $o->{reasons}[0]"')
[ $rc -ne 0 ] && [[ "$n" == "INCOMPLETE none: one rank: no transport to overlap"* ]] && grep -q '^rack default: INCOMPLETE' "$TMP/one.out"
ok $? "one rank: INCOMPLETE, nothing implicated ($n)"

# ---- the GPU form, through the stand-in plugin ----
$FC run --out "$TMP/gpu" --np 2 --profile "$TMP/gpu.yaml" $SI > "$TMP/gpu.out" 2>&1
rc=$?
n=$(rec gpu 'my ($o) = grep { $_->{type} eq "overlap" } @r;
    sprintf("%s %s %s %d %d %d %d %d %d", $o->{backend}, $o->{kind}, ($o->{gemm_algo} =~ /^stand-in/ ? "standin" : "?"), $o->{gemms},
        $o->{coll_alone_us} > 0, $o->{compute_alone_us} > 0, $o->{together_us} > 0, $o->{wrong}, $o->{gemm_wrong})')
diag "nccl on the stand-in: $(fig gpu) ($n)"
[[ "$n" =~ ^nccl\ gemm\ standin\ [1-9][0-9]*\ 1\ 1\ 1\ 0\ 0$ ]] &&
    ! grep -q '^rack default: PASS' "$TMP/gpu.out" &&
    grep -q '^  INCOMPLETE rack default, overlap stage, gpus: the overlap stage was measured by the test stand-in plugin, not a GPU' "$TMP/gpu.out" &&
    grep -q '^# overlap on nccl: 2 ranks, [0-9]* fp64 GEMMs of 64 x 64 per compute phase (compute_ms 5.0; stand-in' "$TMP/gpu/overlap.tap"
ok $? "backend: nccl on the stand-in: the GEMMs beside the all_reduce measured end to end, nothing wrong, and the stand-in certifies nothing ($rc)"
$FC run --out "$TMP/gbad" --np 2 --profile "$TMP/gpu.yaml" $SI --env FC_GPU_STANDIN_GEMM_FLIP=rank=1,batch=6 \
    --selftest-corrupt rank=1,iter=2 --selftest-stage overlap > "$TMP/gbad.out" 2>&1
rc=$?
n=$(rec gbad 'my ($o) = grep { $_->{type} eq "overlap" } @r; "$o->{verdict} " . join(" | ", @{$o->{reasons}})')
[ $rc -eq 1 ] && [[ "$n" == FAIL* ]] &&
    [[ "$n" == *"1 GEMMs on rank 1 (host $H), GPU 00000000:11:00.0 (local rank 1), computed a C that differs bit for bit from the burn's first C ("*"): first at iteration 1, GEMM "* ]] &&
    [[ "$n" == *"1 wrong elements; most on rank 1 (host $H), first there at iteration 2, element 524288"* ]]
ok $? "a wrong C in the burn and a flipped bit of the together all_reduce: FAIL naming rank 1, $H and its GPU ($rc)"
$FC run --out "$TMP/gall" --np 2 --profile "$TMP/gpu1.yaml" $SI --env FC_GPU_STANDIN_GEMM_FLIP=rank=1,batch=0 > "$TMP/gall.out" 2>&1
rc=$?
n=$(rec gall 'my ($o) = grep { $_->{type} eq "overlap" } @r; "$o->{verdict} $o->{gemm_wrong} " . join(" | ", @{$o->{reasons}})')
[ $rc -eq 1 ] && [[ "$n" == "FAIL 0 "* ]] &&
    [[ "$n" == *"the GEMM burn's first C on rank 1 (host $H) is "*", on rank 0 (host $H) "*": GPUs of the same model with the same algorithm (stand-in|"*") compute the same C, so one of them computes wrongly"* ]]
ok $? "a GPU wrong the same way from its first GEMM (its own comparison sees nothing): its first C differs from the other GPU's, FAIL naming both ($rc)"
$FC run --out "$TMP/gnone" --np 2 --profile "$TMP/gpu.yaml" --env FABCERT_GPU_PLUGIN=/nonexistent/libfabcert_gpu.so > "$TMP/gnone.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q '^stage overlap: SKIPPED: --backend nccl: host .* (rank 0) cannot run it: the GPU plugin /nonexistent/libfabcert_gpu.so is missing' "$TMP/gnone.out" &&
    grep -q '^rack default: INCOMPLETE' "$TMP/gnone.out"
ok $? "backend: nccl without the plugin: the stage is skipped with the reason, INCOMPLETE ($rc)"
forge_report glow "$TMP/gpu" -pe 'if (/"type":"overlap"/) { s/"overlap_pct":[0-9.e+-]*/"overlap_pct":-5/; s/"verdict":"[A-Z]*"/"verdict":"PASS"/; s/"reasons":\[.*?\],"requested/"reasons":[],"requested/ }'
rc1=$?
cp -r "$TMP/gpu" "$TMP/gcut" && rm -rf "$TMP/gcut/report" "$TMP/gcut/certificates"
perl -ne 'print unless /"type":"overlap"/' "$TMP/gpu/results.jsonl" |
    perl -pe 's/"(judged_records|points|failed_points|judged_not_pass)":1/"$1":0/g if /"type":"stage_end"/ && /"stage":"overlap"/' > "$TMP/gcut/results.jsonl"
$FC report "$TMP/gcut" > "$TMP/gcut.out" 2>&1
rc2=$?
[ $rc1 -eq 1 ] && grep -q "^  FAIL .*overlap stage.*its own figures fail its limit (overlap -5.0% is below min_overlap_pct 0)" "$TMP/glow.out" &&
    [ $rc2 -ne 0 ] && grep -q "^  INCOMPLETE .*overlap stage, sweep: stage overlap did not measure what the plan says (the frozen profile with the plan's overrides): planned 1 sizes, 0 judged (first missing: size 4 MiB on cluster)$" "$TMP/gcut.out"
ok $? "the nccl record re-judged by the report (overlap_pct forged to -5 under PASS: FAIL) and held to the plan (deleted: INCOMPLETE) ($rc1 $rc2)"
done_testing
