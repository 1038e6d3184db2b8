#!/bin/bash
# soak_gpu.t - the soak's GPU side (lib/soak/fc_soak_gpu.h) on a host without a
# GPU: the soak stage on the nccl backend through the stand-in GPU plugin
# (tests/standin/fc_gpu_standin.c, host mode: the collectives on MPI, a CPU
# GEMM standing in for the burn) and the real NVML reader against the
# stand-in NVML library (tests/standin/fc_nvml_standin.c), 3-4 ranks on
# this machine, 3 s in windows of 0.75 s. Shows that:
#   - a clean soak burns beside the collectives on every rank and reads
#     every GPU's health at every window: one soak_gpu record per GPU, PASS;
#   - faults planted from outside, one per GPU: an uncorrectable ECC count
#     that rises from the third reading (GPU 1), a HW thermal slowdown from
#     the fourth (GPU 0), a GEMM result flipped by the burn (rank 2), and a
#     GPU NVML does not list (GPU 3): each GPU FAILs (or is INCOMPLETE)
#     alone, naming its host, index and UUID, with the counter, both values
#     and the window as evidence; the rack FAILs, the certificate and the
#     summary carry it;
#   - on the mpi backend neither applies: no soak_gpu record, and every
#     window record says why;
#   - a bad soak.gpu_burn is refused with file:line:col, exit 2.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 11
STANDIN=$PWD/$BUILD/tests/libfc_gpu_standin.so
cat > "$TMP/soak.yaml" <<'YAML'
name: soak-gpu
seed: 11
stages:
  soak:
    required: true
    timeout_s: 100
    warmup: 1
    iters: 3
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
    soak:
      duration_s: 3
      window_s: 0.75
      max_drift_pct: 1000000
YAML
# the soak FAILs a link that vanishes or flaps while it runs, and other
# tests' virtual clusters come and go beside it (make check runs them in
# parallel with this one; other users on a shared machine): follow one
# device-backed NIC, as fabcert_run.t, integrity.t and long_run.t do
phys=$(for i in /sys/class/net/*; do [ -L "$i" ] && ! readlink "$i" | grep -q /virtual/ && basename "$i"; done | head -1)
echo "      nic_pattern: \"${phys:-*}\"" >> "$TMP/soak.yaml"
# the stand-in NVML's GPUs: the PCI ids the stand-in plugin gives local
# ranks 0-2 (00000000:1L:00.0); local rank 3's is missing
{
    echo "gpus 3"; echo "driver 580.65.06"
    for g in 0 1 2; do
        echo "$g.uuid GPU-standin-$g"; echo "$g.pci 00000000:1$g:00.0"; echo "$g.name StandIn"
    done
} > "$TMP/nvml.txt"
run() {     # run OUT NP [fabcert run options]
    local out=$1 np=$2; shift 2
    $FC run --np "$np" --profile "$TMP/soak.yaml" --out "$TMP/$out" "$@" \
        > "$TMP/$out.out" 2> "$TMP/$out.err"
    rc=$?
}
GPU=(--backend nccl --env FABCERT_GPU_PLUGIN="$STANDIN" --env FC_GPU_STANDIN=host
     --env FABCERT_NVML_LIB="$PWD/$BUILD/tests/libfc_nvml_standin.so"
     --env FC_NVML_STANDIN_FILE="$TMP/nvml.txt")
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }

# 1. clean
run clean 3 "${GPU[@]}"
# (drift is judged too, against a limit no healthy run reaches; a machine
# stalled by other jobs can still exceed it, which is not this test's)
# the stand-in measured host memory: its checks pass, its rack is never
# PASS (INCOMPLETE; FAIL only for a drift a stalled machine can show)
[ $rc -eq 1 ] && grep -q '^rack default: \(INCOMPLETE\|FAIL\)' "$TMP/clean.out" &&
    grep -q '^  INCOMPLETE rack default, soak stage, gpus: the soak stage was measured by the test stand-in plugin, not a GPU' "$TMP/clean.out" &&
    ! grep '^  [A-Z]* rack ' "$TMP/clean.out" | grep -v 'measured by the test stand-in plugin, not a GPU' |
      grep -qv 'sustained drift\|intermittent drift'
ok $? "a clean soak on nccl (stand-in): every check passes, burn and GPU health included, and the rack is INCOMPLETE: the stand-in is not a GPU ($rc)"
n=$(rec clean 'scalar grep { $_->{type} eq "soak_gpu" && $_->{verdict} eq "PASS" &&
    $_->{health}{windows_judged} >= 3 && keys(%{$_->{burn}{kinds}}) == 3 &&
    !grep { $_->{chunks} < 1 || $_->{mismatched_iterations} != 0 } values %{$_->{burn}{kinds}} } @r')
w=$(rec clean 'scalar grep { $_->{type} eq "soak_window" && $_->{gpu}{applies} && @{$_->{gpu}{gpus}} == 3 } @r')
[ "$n" -eq 3 ] && [ "$w" -ge 3 ]
ok $? "one soak_gpu record per GPU: every kind burnt beside the collectives, health judged in every window ($n GPUs, $w windows with all 3)"

# 2. a fault on each GPU, planted from outside
run faults 4 "${GPU[@]}" \
    --env FC_NVML_STANDIN_PLANT=1.ecc_volatile_uncorrected=4@3,0.reasons=0x40@4 \
    --env FC_GPU_STANDIN_BURN_FLIP=rank=2,call=2
[ $rc -eq 1 ] && grep -q '^rack default: FAIL' "$TMP/faults.out"
ok $? "faults planted on GPUs: the rack FAILs ($rc)"
v=$(rec faults 'join " ", map { "$_->{device}:$_->{verdict}" } sort { $a->{device} <=> $b->{device} } grep { $_->{type} eq "soak_gpu" } @r')
is "$v" "0:FAIL 1:FAIL 2:FAIL 3:INCOMPLETE" "each GPU judged alone: three FAIL, the one NVML does not list is INCOMPLETE"
e=$(rec faults 'my ($g) = grep { $_->{type} eq "soak_gpu" && $_->{device} == 1 } @r; my ($x) = @{$g->{evidence}};
    "$x->{counter} $x->{before} $x->{after} w$x->{window} $g->{implicates}{part} $g->{implicates}{host} $g->{implicates}{gpu} $g->{implicates}{uuid}"')
is "$e" "ecc_volatile_uncorrected 0 4 w1 gpu $(hostname) 1 GPU-standin-1" "an uncorrectable ECC rise on GPU 1 in window 1: the counter, both values and the window as evidence; it implicates that GPU (host, index, UUID)"
e=$(rec faults 'my ($g) = grep { $_->{type} eq "soak_gpu" && $_->{device} == 0 } @r; my ($x) = @{$g->{evidence}};
    "$x->{counter} w$x->{window} " . ($g->{reasons}[0] =~ /held down by hw_thermal_slowdown/ ? 1 : 0)')
is "$e" "hw_thermal_slowdown w2 1" "a HW thermal slowdown on GPU 0 from the window 2 reading: FAIL, named"
e=$(rec faults 'my ($g) = grep { $_->{type} eq "soak_gpu" && $_->{device} == 2 } @r;
    join " ", $g->{evidence}[0]{counter}, $g->{burn}{kinds}{fp16}{mismatched_iterations}, $g->{burn}{kinds}{bf16}{verdict},
    ($g->{reasons}[0] =~ /^GPU 2 \(GPU-standin-2\) of host \S+: burn fp16: 1 of \d+ GEMM results differed/ ? 1 : 0)')
is "$e" "burn_mismatch 1 PASS 1" "a GEMM result flipped on rank 2's fp16 burn: that GPU FAILs with the kind and the count, its other kinds pass"
grep -q "GPU 3 (GPU-standin-3) of host $(hostname): GPU health could not be read at the start of the soak: NVML has no GPU at PCI 00000000:13:00.0" "$TMP/faults/results.jsonl"
ok $? "a GPU NVML cannot read: INCOMPLETE with the reason, never PASS"
w=$(rec faults 'my ($w) = grep { $_->{type} eq "soak_window" && $_->{window} == 1 } @r; join " ", map { "$_->{device}:$_->{verdict}" } @{$w->{gpu}{gpus}}')
c=$(jsonl "$TMP/faults/certificates/default.json" 'my ($f) = grep { ($_->{uuid} // "") eq "GPU-standin-1" } @{$r[0]{certificate}{stages}[0]{figures}};
    my ($x) = @{$f->{evidence}}; "$f->{check} $f->{gpu} $f->{verdict} $x->{counter} $x->{after} " . scalar(keys %{$f->{burn}})')
grep -q "FAIL rack default, soak stage, gpu $(hostname): .*GPU 0 (GPU-standin-0.*\[and 3 more\]" "$TMP/faults.out" &&
    [ "$w" = "0:PASS 1:FAIL 2:PASS 3:INCOMPLETE" ] &&
    [ "$c" = "GPU 1 (GPU-standin-1) of $(hostname) 1 FAIL ecc_volatile_uncorrected 4 3" ]
ok $? "the window record says which GPU failed when ($w); the certificate's figure carries the GPU, its counter and burn ($c); the summary names the part gpu and the host"

# 3. the mpi backend: neither applies, and the records say so
run mpi 2
n=$(rec mpi 'scalar grep { $_->{type} eq "soak_gpu" } @r')
w=$(rec mpi 'scalar grep { $_->{type} eq "soak_window" && !$_->{gpu}{applies} && $_->{gpu}{why} =~ /mpi backend: the GPU burn and GPU health apply on nccl/ } @r')
[ $rc -ne 2 ] && [ "$n" -eq 0 ] && [ "$w" -ge 3 ]
ok $? "on mpi: no soak_gpu record, and each window record says why ($rc, $w windows)"

# 4. a bad gpu_burn
sed 's/      max_drift_pct: 1000000/      max_drift_pct: 1000000\n      gpu_burn: bf16,fp32/' "$TMP/soak.yaml" > "$TMP/bad.yaml"
$FC check-profile "$TMP/bad.yaml" > /dev/null 2> "$TMP/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml:17:17: 'gpu_burn' is a comma list of bf16, fp16 and fp64, each once, or none; not 'bf16,fp32'" "$TMP/bad.err"
ok $? "a bad soak.gpu_burn: exit 2 with file:line:col ($rc)"
done_testing
