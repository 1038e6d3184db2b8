#!/bin/bash
# gpu.t - the GPU path on a machine without a GPU (this project's CI): the
# plugin compiles and links for Ampere and Hopper; the stage programs run
# without it and say why: --backend nccl skips the stage with the reason
# (never a crash, never a pass), its rack is INCOMPLETE, --backend auto
# falls back to mpi and says so; the MPI-free node check skips with the
# reason. The shared generator's C/CUDA agreement is build/tests/
# pattern_twins.t. Skips where the CUDA toolkit is absent, and where a GPU
# is present (run tests/gpu/run-gpu-checks there).
. tests/e2e/tap.sh
FC=$BUILD/fabcert
PLUGIN=$BUILD/libfabcert_gpu.so
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    echo "1..0 # SKIP no CUDA toolkit at $CUDA_HOME: the GPU plugin is not built here"; exit 0
fi
if [ "$("$BUILD/fabcert-node-gpu" --count 2>/dev/null)" -gt 0 ] 2>/dev/null; then
    echo "1..0 # SKIP a GPU is present: run tests/gpu/run-gpu-checks"; exit 0
fi
plan 12

[ -s "$PLUGIN" ] && nm -D --defined-only "$PLUGIN" | grep -q ' fc_gpu_plugin_v6$'
ok $? "the GPU plugin is built and exports its table"
# (cuobjdump is not in every toolkit image; the fat binary names its targets)
archs=$(strings -a "$PLUGIN" | grep -o 'sm_[0-9]*' | sort -u | tr '\n' ' ')
case "$archs" in *sm_80*sm_90*) ok 0 "it holds kernels for Ampere and Hopper ($archs)";;
                 *) ok 1 "it holds kernels for Ampere and Hopper ($archs)";; esac
readelf -d "$PLUGIN" | grep -q 'libnccl.so' && readelf -d "$PLUGIN" | grep -q 'libcudart.so'
ok $? "it links NCCL and the CUDA runtime"
! nm "$BUILD/suites/node" | grep -qi ' U .*nccl\|cuda'
ok $? "the stage programs do not link CUDA or NCCL themselves"

mpirun -np 2 "$BUILD/suites/node" --backend nccl --out "$TMP/nccl" --sizes 4KiB > "$TMP/nccl.tap" 2> "$TMP/nccl.err"
rc=$?
[ $rc -eq 1 ] && grep -q "^1\.\.0 # SKIP --backend nccl: host $(hostname) (rank 0) cannot run it: " "$TMP/nccl.tap"
ok $? "--backend nccl without a GPU: exit 1 ($rc), the stage skipped with the reason"
n=$(jsonl "$TMP/nccl/results.jsonl" 'my ($e) = grep { $_->{type} eq "stage_end" } @r; ($e->{verdict} eq "SKIP" && $e->{reason} =~ /cannot run it/) ? 1 : 0')
p=$(jsonl "$TMP/nccl/results.jsonl" 'scalar grep { $_->{type} eq "point" } @r')
ok $(( n != 1 || p != 0 )) "results say SKIP with the reason, and hold no measurement"

mpirun -np 2 "$BUILD/suites/node" --backend auto --out "$TMP/auto" --sizes 4KiB \
    --collectives all_reduce --dtypes int32 --ops sum > "$TMP/auto.tap" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^# --backend auto: using mpi, as host .* cannot use nccl' "$TMP/auto.tap" &&
    grep -q '^ok 1 - all_reduce int32 sum 4 KiB' "$TMP/auto.tap"
ok $? "--backend auto falls back to mpi, runs, and says why ($rc)"

FABCERT_GPU_PLUGIN=$TMP/none.so mpirun -np 1 "$BUILD/suites/node" --backend nccl --out "$TMP/none" \
    --sizes 4KiB > "$TMP/none.tap" 2>&1
grep -q "the GPU plugin $TMP/none.so is missing" "$TMP/none.tap"
ok $? "a missing plugin is named"

$FC run --out "$TMP/run" --np 2 --backend nccl --sizes 4KiB > "$TMP/run.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^rack default: INCOMPLETE' "$TMP/run.out" &&
    grep -q 'required stage node was skipped: --backend nccl' "$TMP/run.out"
ok $? "fabcert run --backend nccl: the rack is INCOMPLETE with the reason, exit 1 ($rc)"

sed 's/^    required: true$/    required: true\n    backend: nccl/' thresholds/local.yaml > "$TMP/gpu.yaml"
$FC run --out "$TMP/prof" --np 2 --profile "$TMP/gpu.yaml" --sizes 4KiB > "$TMP/prof.out" 2>&1
grep -q 'stage node: SKIPPED: --backend nccl' "$TMP/prof.out"
ok $? "a profile's 'backend: nccl' selects the GPU path too"
sed 's/^    required: true$/    required: true\n    backend: cuda/' thresholds/local.yaml > "$TMP/bad.yaml"
$FC check-profile "$TMP/bad.yaml" > /dev/null 2> "$TMP/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml:11:14: 'backend' must be mpi, nccl or auto, not 'cuda'" "$TMP/bad.err"
ok $? "a bad backend in a profile: exit 2 with file:line:col ($rc)"

"$BUILD/fabcert-node-gpu" --sizes 4KiB > "$TMP/single.tap" 2>&1
rc=$?
n=$("$BUILD/fabcert-node-gpu" --count 2> "$TMP/count.err")
[ $rc -eq 1 ] && grep -q '^1\.\.0 # SKIP no usable GPU: ' "$TMP/single.tap" &&
    [ "$n" = 0 ] && grep -q 'no usable GPU: ' "$TMP/count.err"
ok $? "the MPI-free node check skips with the reason ($rc), and --count says 0 GPUs, why"
done_testing
