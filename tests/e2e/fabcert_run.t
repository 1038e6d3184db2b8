#!/bin/bash
# fabcert_run.t - the `fabcert` command: the quick-start run passes and
# leaves its output directory; a planted flip fails it; bad usage and a bad
# profile exit 2 without a verdict; a launcher that hangs is killed at the
# profile's timeout plus the launch margin (15 s) and reported INCOMPLETE,
# never PASS; a short soak passes with its windows and counters, and a flip
# during it is caught; a --soak-duration under 1 s, or one that leaves the
# profile's window less than twice (drift needs two windows), exits 2;
# more ranks than the CPUs the run may use (taskset to one CPU, the
# variable unset): the ranks are told to yield, the run says so and the
# plan records it; as many ranks as CPUs: nothing said, nothing set.
# lane: pinned, about 45 s (a soak held under 4.9 s, a hang killed within 25 s)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 29

$FC run --out "$TMP/run" > "$TMP/run.out" 2> "$TMP/run.err"
ok $? "fabcert run (the quick start's, one rank per core, 2 at least) exits 0 on a healthy machine"
grep -q '^verdict: PASS (1 rack: 1 pass' "$TMP/run.out" && grep -q "^output: $TMP/run$" "$TMP/run.out"
ok $? "it prints the verdict and where the output is"
[ -s "$TMP/run/run.json" ] && [ -s "$TMP/run/results.jsonl" ] && grep -q '^1\.\.252$' "$TMP/run/node.tap"
ok $? "the output directory holds run.json, results.jsonl and the stage's TAP"
[ -s "$TMP/run/report/index.html" ] && [ -s "$TMP/run/junit.xml" ] && [ -s "$TMP/run/summary.txt" ] &&
    $FC verify "$TMP/run/certificates/default.json" > /dev/null
ok $? "and the reports: a certificate that verifies, HTML, JUnit, the summary"

$FC run --out "$TMP/flip" --np 2 --sizes 4KiB --dtypes int64 \
    --selftest-corrupt rank=1,iter=0,coll=broadcast > "$TMP/flip.out" 2>&1
ok $(( $? != 1 )) "a planted flip makes fabcert run exit 1"
host=$(hostname)
grep -q "^  FAIL rack default, node stage, node $host: .*broadcast int64 4096 bytes: .*first on rank 1 (host $host)" "$TMP/flip.out" &&
    grep -q '^verdict: FAIL' "$TMP/flip.out"
ok $? "and the summary names the collective, size, host and rank"

# crowded: 2 ranks on one CPU, the variable unset (tap.sh sets it for
# every test). Unyielding, a node stage of 2 ranks on one CPU took 102 s
# and failed 28 of its 252 checks. The launcher (a wrapper) writes down
# what the ranks are started with; the run is interrupted once its stage
# has started and resumed under the same CPU set: the resume, which
# compares the environment with the plan's, goes on.
if command -v taskset > /dev/null; then
    cpu=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status | cut -d, -f1 | cut -d- -f1)
    printf '#!/bin/sh\necho "${OMPI_MCA_mpi_yield_when_idle:-unset}" >> "%s"\nexec mpirun "$@"\n' \
        "$TMP/launched" > "$TMP/mpirun-env"
    chmod +x "$TMP/mpirun-env"
    crowd() {   # crowd OUT NP [options]: on one CPU, the variable unset
        local out=$1 np=$2; shift 2
        env -u OMPI_MCA_mpi_yield_when_idle taskset -c "$cpu" $FC run --out "$TMP/$out" --np "$np" \
            --mpirun "$TMP/mpirun-env" "$@" > "$TMP/$out.out" 2>&1
    }
    planned() { jsonl "$TMP/$1/results.jsonl" 'my ($p) = grep { $_->{type} eq "plan" } @r; $p->{environment}{OMPI_MCA_mpi_yield_when_idle} // "unset"'; }
    said='^ranks: 2 on the 1 CPU(s) this process may use: they yield while they wait (OMPI_MCA_mpi_yield_when_idle=1)$'
    : > "$TMP/launched"
    crowd crowd 2 --sizes 4KiB --dtypes int64
    rc=$?
    grep -q "$said" "$TMP/crowd.out"
    ok $(( rc != 0 || $? != 0 )) "2 ranks on 1 CPU: PASS, the run says the ranks yield ($rc)"
    is "$(planned crowd) $(sort -u "$TMP/launched" | tr '\n' ' ')" "1 1 " \
        "the plan's environment records OMPI_MCA_mpi_yield_when_idle=1, and the launcher was started with it"
    : > "$TMP/launched"
    crowd fit 1 --sizes 4KiB --dtypes int64
    rc=$?
    ! grep -q '^ranks:' "$TMP/fit.out"
    ok $(( rc != 0 || $? != 0 )) "1 rank on 1 CPU: PASS, nothing said of yielding ($rc)"
    is "$(planned fit) $(sort -u "$TMP/launched" | tr '\n' ' ')" "unset unset " \
        "nothing recorded, the launcher started without the variable"
    # interrupted and resumed, crowded both times
    env -u OMPI_MCA_mpi_yield_when_idle taskset -c "$cpu" $FC run --out "$TMP/cut" --np 2 \
        --mpirun "$TMP/mpirun-env" --sizes 4KiB,256KiB > "$TMP/cut.out" 2>&1 &
    pid=$!      # (env and taskset exec: the runner's own pid)
    for i in $(seq 300); do grep -qs '"type":"stage_start"' "$TMP/cut/results.jsonl" && break; sleep 0.1; done
    kill -TERM $pid; wait $pid
    env -u OMPI_MCA_mpi_yield_when_idle taskset -c "$cpu" $FC run --resume "$TMP/cut" --np 2 \
        --mpirun "$TMP/mpirun-env" --sizes 4KiB,256KiB > "$TMP/resumed.out" 2>&1
    rc=$?
    grep -q "$said" "$TMP/resumed.out" && grep -q '^verdict: PASS' "$TMP/resumed.out"
    ok $(( rc != 0 || $? != 0 )) "a crowded run interrupted and resumed on the same CPU: the resume goes on, says the ranks yield and PASSes ($rc)"
    [ $rc -eq 0 ] || why "$(tail -5 "$TMP/resumed.out")"
else
    for i in 1 2 3 4 5; do ok 0 "# SKIP taskset is missing"; done
fi

$FC run --no-such-option > /dev/null 2>&1
ok $(( $? != 2 )) "an unknown option exits 2"
$FC frobnicate > /dev/null 2>&1
ok $(( $? != 2 )) "an unknown command exits 2"
$FC run --out "$TMP/bad" --profile tests/profiles/bad/negative-limit.yaml > "$TMP/bad.out" 2>&1
ok $(( $? != 2 )) "a bad profile exits 2"
! grep -q 'verdict' "$TMP/bad.out" && [ ! -e "$TMP/bad/results.jsonl" ]
ok $? "and prints no verdict and writes no results"
$FC --help | grep -q -- '--selftest-corrupt' && $FC --help | grep -q 'exit status'
ok $? "--help documents the options and the exit statuses"

# a launcher that hangs: the stage must be ended at timeout_s + margin
cat > "$TMP/hang-mpirun" <<'SH'
#!/bin/sh
sleep 600
SH
chmod +x "$TMP/hang-mpirun"
sed 's/timeout_s: 900/timeout_s: 1/' thresholds/local.yaml > "$TMP/short.yaml"
start=$(date +%s)
$FC run --out "$TMP/hang" --profile "$TMP/short.yaml" --mpirun "$TMP/hang-mpirun" > "$TMP/hang.out" 2> "$TMP/hang.err"
rc=$?; took=$(( $(date +%s) - start ))
[ $rc -eq 1 ] && grep -q '^verdict: INCOMPLETE' "$TMP/hang.out" &&
    grep -q '^  INCOMPLETE rack default, node stage: required stage node did not run' "$TMP/hang.out"
ok $? "a hung stage is reported INCOMPLETE with exit 1 (rc $rc)"
[ $took -le 25 ] && grep -q 'the launcher ran past 16 s; killing it' "$TMP/hang/node.log"
ok $? "and is killed at its timeout plus the launch margin (${took}s)"
# inside a Slurm allocation, without an inventory: the allocation's nodes
SLURM_JOB_NODELIST="$(hostname)" $FC run --out "$TMP/slurm" --np 2 --sizes 4KiB \
    --collectives all_reduce > "$TMP/slurm.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^fabcert: hosts from SLURM_JOB_NODELIST: $(hostname)$" "$TMP/slurm.out" &&
    grep -qx "$(hostname)" "$TMP/slurm/hosts"
ok $? "inside a Slurm allocation the hosts come from SLURM_JOB_NODELIST ($rc)"
SLURM_JOB_NODELIST="gpu[3-1]" $FC run --out "$TMP/slurmbad" --np 2 > "$TMP/slurmbad.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "hosts:2: bad host list 'gpu\[3-1\]': range '3-1' runs backwards" "$TMP/slurmbad.out"
ok $? "a malformed SLURM_JOB_NODELIST is a clear error, exit 2 ($rc)"

# the soak stage on this machine: 3 s in windows of 1 s
cat > "$TMP/soak.yaml" <<'YAML'
name: soak-local
seed: 9
stages:
  soak:
    timeout_s: 70
    warmup: 1
    iters: 4
    sizes: [4KiB, 256KiB]
    collectives: [all_reduce, all_gather]
    dtypes: [float32]
    ops: [sum]
    soak:
      duration_s: 3
      window_s: 1
      max_drift_pct: 1000
YAML
# the soak FAILs a link that vanishes while it runs; on a shared machine other
# tests' virtual clusters come and go, so follow one device-backed NIC
phys=$(for i in /sys/class/net/*; do [ -L "$i" ] && ! readlink "$i" | grep -q /virtual/ && basename "$i"; done | head -1)
echo "      nic_pattern: \"${phys:-*}\"" >> "$TMP/soak.yaml"
$FC run --out "$TMP/soak" --np 2 --profile "$TMP/soak.yaml" > "$TMP/soak.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^rack default: PASS' "$TMP/soak.out"
ok $? "a 3-second soak passes on a healthy machine ($rc)"
[ $rc -eq 0 ] || why "$(grep -E '^(stage|  (FAIL|INCOMPLETE))' "$TMP/soak.out" | cut -c1-600 | head -6)"
n=$(jsonl "$TMP/soak/results.jsonl" 'scalar grep { $_->{type} eq "soak_window" && @{$_->{points}} == 4 } @r')
ok $(( n < 2 )) "each window's medians are written as it closes ($n windows)"
n=$(jsonl "$TMP/soak/results.jsonl" 'my @p = grep { $_->{type} eq "point" && $_->{stage} eq "soak" } @r;
    scalar(grep { $_->{soak}{runs} >= 3 && @{$_->{soak}{windows}} >= 2 && defined $_->{soak}{drift_pct} &&
                  $_->{wrong} == 0 } @p) . "/" . scalar(@p)')
[ "$n" = 4/4 ]
ok $? "every point ran, checked, in several windows, with its drift ($n)"
n=$(jsonl "$TMP/soak/results.jsonl" 'scalar grep { $_->{type} eq "soak_counters" && $_->{host} eq "'"$(hostname)"'" && $_->{verdict} eq "PASS" && exists $_->{links}{lo} == 0 } @r')
ok $(( n != 1 )) "the host's link error counters are read before and after ($n)"
$FC run --out "$TMP/soak2" --np 2 --profile "$TMP/soak.yaml" --soak-duration 4s > "$TMP/soak2.out" 2>&1
rc=$?
n=$(jsonl "$TMP/soak2/results.jsonl" 'my ($p) = grep { $_->{type} eq "plan" } @r; my ($s) = grep { $_->{type} eq "point" } @r;
    sprintf "%g %.1f %d", $p->{soak_duration_s}, $s->{soak}{seconds}, scalar @{$s->{soak}{windows}}')
set -- $n
[ $rc -eq 0 ] && [ "$1" = 4 ] && awk -v s="$2" 'BEGIN { exit !(s >= 4 && s < 4.9) }' && [ "$3" -ge 3 ]
ok $? "--soak-duration 4s replaces the profile's 3 s, and the plan records it ($n)"
$FC run --out "$TMP/soakbad" --np 2 --profile "$TMP/soak.yaml" --soak-duration 3x > "$TMP/soakbad.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "soak-duration '3x': expected seconds" "$TMP/soakbad.out"
ok $? "a malformed --soak-duration is refused, exit 2 ($rc)"
$FC run --out "$TMP/soakshort" --np 2 --profile "$TMP/soak.yaml" --soak-duration 0.5 > "$TMP/soakshort.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "soak-duration '0.5': below the least soak duration, 1 s" "$TMP/soakshort.out" &&
    [ ! -e "$TMP/soakshort/results.jsonl" ]
ok $? "a --soak-duration below the profile's minimum (1 s) is refused, exit 2 ($rc)"
$FC run --out "$TMP/soakone" --np 2 --profile "$TMP/soak.yaml" --soak-duration 1.5 > "$TMP/soakone.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "soak-duration 1.5 s: the profile's window_s (1 s, .*soak.yaml:14:17) leaves fewer than 3 windows in it" "$TMP/soakone.out"
ok $? "a --soak-duration that leaves the profile's window_s fewer windows than a drift needs is refused, exit 2 ($rc)"
$FC run --out "$TMP/soakflip" --np 2 --profile "$TMP/soak.yaml" --selftest-stage soak \
    --selftest-corrupt rank=1,iter=1,coll=all_gather > "$TMP/soakflip.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^  FAIL rack default, soak stage, .*all_gather float32 .*first on rank 1 (host $(hostname))" "$TMP/soakflip.out"
ok $? "a bit flipped during the soak is caught and attributed ($rc)"
done_testing
