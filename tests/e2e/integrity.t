#!/bin/bash
# integrity.t - a PASS only from evidence, and a certificate that says what
# ran, each case planted from outside the code
# that judges it:
#   - a GPU backend whose init fails on every rank (a stand-in plugin, as a
#     dead NVLink or HCA makes ncclCommInitRank fail): the stage ends with
#     no check, the rack is INCOMPLETE with the stage's own error, exit 1;
#   - the same backend in an optional stage (required: false): the stage
#     ran and ended in error, so the rack is INCOMPLETE all the same, and
#     JUnit has the error;
#   - a required stage left out with --stages: INCOMPLETE, naming it;
#   - command-line overrides (--mpirun PATH among them): in the plan, the
#     certificate, the summary, the JUnit properties and the HTML;
#   - --backend auto falling back to mpi: the backend each stage used, what
#     was asked and why it fell back, in the certificate and the summary;
#     a profile's backend: nccl lifted by --backend mpi: INCOMPLETE;
#   - an nccl stage that ran fewer ranks on a host than its GPUs (a
#     devices record as the stage writes it): INCOMPLETE, naming the GPUs
#     not tested;
#   - a rack map of 32 hosts for a rack, a host list of one: the rack is
#     INCOMPLETE, its left-out hosts named in the plan, the certificate,
#     the summary, JUnit and verify; the plan line edited to drop them
#     (inventory.left_out emptied, or deleted), or the frozen rack map
#     removed: still INCOMPLETE, the report re-reading the frozen host list
#     and rack map says why;
#   - records that cannot be read (a torn line inside a stage, after the
#     last stage, before the first) and a stage whose checks were lost:
#     INCOMPLETE, never PASS; the same records whole still PASS;
#   - results.jsonl edited the ways a reviewer found to fake a PASS (a NUL
#     before a failing record, an end record that contradicts its records
#     or itself (a count missing, past an int, more points than records),
#     another run's records, two plans, an old plan, a misspelt verdict, a
#     judged record outside any attempt or after its attempt's end, a
#     stage's check labelled as the retest's after its end or as the
#     runner's inside its attempt, a stage's context after its end, a
#     record with a key given twice, a host
#     in two racks of the plan (exit 2), a
#     point whose figures show wrong bits under a PASS verdict, a failure
#     that names no rack of the plan (rack "ghost", an implicates without
#     host), a plan that drops a required stage or marks it optional (the
#     report checks the plan against the frozen profile.yaml), no frozen
#     profile at all, a malformed plan, a rack name that
#     is a path, a host that never ran, a stage judged against another
#     profile, a superseded attempt's PASS that the profile's limit
#     fails, a median or latency missing under a limit): never PASS;
#   - the environment that shapes the measurement (FC_SYSFS_ROOT, a fake
#     sysfs tree, among it, said in every report; OMPI_MCA_btl in the
#     summary, JUnit, the HTML and verify) and the GPU plugin's origin are
#     recorded; an override's value, or a record's reason with
#     newlines, cannot fake a summary line.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 91
SWEEP=(--sizes 4KiB --collectives all_reduce --dtypes int32 --ops sum --iters 2 --warmup 1)

# 1. a backend that cannot start anywhere
$FC run --out "$TMP/dead" --np 2 --stages node --backend nccl "${SWEEP[@]}" \
    --env FABCERT_GPU_PLUGIN="$PWD/$BUILD/tests/libfc_gpu_standin.so" > "$TMP/dead.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^verdict: INCOMPLETE' "$TMP/dead.out"
ok $? "a stage whose backend cannot start is INCOMPLETE, exit 1 (rc $rc)"
grep -q "^stage node: ERROR: 0 checks" "$TMP/dead.out" &&
    grep -q "INCOMPLETE rack default, node stage: required stage node ended with status 'internal error': host $(hostname) rank [01]: stage node: the nccl backend could not start" "$TMP/dead.out"
ok $? "the runner and the verdict give the stage's own error, with host and rank"
jsonl "$TMP/dead/certificates/default.json" '$r[0]{certificate}{verdict} eq "INCOMPLETE" && $r[0]{certificate}{stages}[0]{backend}{used} eq "nccl" ? "yes" : "no"' | grep -q yes
ok $? "the certificate says INCOMPLETE and that the stage ran on nccl"
jsonl "$TMP/dead/certificates/default.json" 'my $p = $r[0]{certificate}{stages}[0]{backend}{gpu_plugin}; ($p->{beside_program} ? "bundled" : "foreign") . " " . length($p->{sha256}) . " $p->{path}"' | grep -q "^foreign 64 .*libfc_gpu_standin.so$" &&
    grep -q "^backend: the node stage ran on nccl: the GPU plugin came from .FABCERT_GPU_PLUGIN" "$TMP/dead/summary.txt"
ok $? "a GPU plugin named by FABCERT_GPU_PLUGIN is recorded with its path and hash, and said"

# the stand-in plugin copied over the one built beside the program (a tree
# of fabcert, its node stage and the stand-in as libfabcert_gpu.so): the
# plugin is "the build's", its GPUs are still the stand-in's
mkdir -p "$TMP/fb/build/suites" "$TMP/fb/thresholds"
cp "$BUILD/fabcert" "$TMP/fb/build/"; cp "$BUILD/suites/node" "$TMP/fb/build/suites/"
cp "$BUILD/tests/libfc_gpu_standin.so" "$TMP/fb/build/libfabcert_gpu.so"
cp thresholds/local.yaml "$TMP/fb/thresholds/"
"$TMP/fb/build/fabcert" run --out "$TMP/copied" --np 2 --stages node --backend nccl "${SWEEP[@]}" \
    --env FC_GPU_STANDIN=host > "$TMP/copied.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^stage node: PASS: 1 checks' "$TMP/copied.out" &&
    grep -q "^  INCOMPLETE rack default, node stage, gpus: the node stage was measured by the test stand-in plugin, not a GPU (its devices record names rank 0's GPU \"stand-in\"; plugin $TMP/fb/build/suites/../libfabcert_gpu.so" "$TMP/copied.out" &&
    [ "$(jsonl "$TMP/copied/certificates/default.json" 'my $s = $r[0]{certificate}{stages}[0]; "$s->{verdict} " . ($s->{backend}{gpu_plugin}{beside_program} ? "beside" : "elsewhere")')" = "INCOMPLETE beside" ]
ok $? "the stand-in copied over the built plugin: its PASSing checks certify nothing, INCOMPLETE (rc $rc)"
# one named by FABCERT_GPU_PLUGIN is compared with the one built beside the program
if [ -r "$BUILD/libfabcert_gpu.so" ]; then
    grep -q "^backend: the node stage ran on nccl: the GPU plugin came from .FABCERT_GPU_PLUGIN, not the build: .*libfc_gpu_standin.so (sha256 [0-9a-f]*); it differs from the one built beside the program (sha256 $(sha256sum "$BUILD/libfabcert_gpu.so" | cut -c1-16))$" "$TMP/dead/summary.txt"
    ok $? "a plugin from FABCERT_GPU_PLUGIN whose bytes are not the built one's: the summary says they differ"
else
    ok 0 "# SKIP no GPU plugin was built here (no CUDA toolkit): nothing to compare with"
fi

# an optional stage that ran and ended in error still counts against the rack
cat > "$TMP/optnccl.yaml" <<'YAML'
name: optional-nccl
seed: 7
stages:
  node:
    required: true
    timeout_s: 120
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
    iters: 2
  cluster:
    required: false
    backend: nccl
    timeout_s: 120
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
    iters: 2
YAML
$FC run --out "$TMP/optdead" --np 2 --profile "$TMP/optnccl.yaml" \
    --env FABCERT_GPU_PLUGIN="$PWD/$BUILD/tests/libfc_gpu_standin.so" > "$TMP/optdead.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^rack default: INCOMPLETE' "$TMP/optdead.out" &&
    grep -q "^  INCOMPLETE rack default, cluster stage: optional stage cluster ended with status 'internal error'" "$TMP/optdead.out" &&
    [ "$(xmllint --xpath 'string(//testsuite[@name="default"]/@errors)' "$TMP/optdead/junit.xml")" -ge 1 ] &&
    grep -q 'message="optional stage cluster ended with status' "$TMP/optdead/junit.xml"
ok $? "an optional stage that ran and ended in error makes the rack INCOMPLETE, with a JUnit error (rc $rc)"

# 2. a required stage left out; 3. overrides in every report
cat > "$TMP/two.yaml" <<'YAML'
name: two-stages
seed: 7
stages:
  node:
    required: true
    timeout_s: 120
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
    iters: 2
  soak:
    required: true
    timeout_s: 120
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
    soak:
      duration_s: 3
      window_s: 1
      max_drift_pct: 100000
YAML
# the soak FAILs a link that vanishes while it runs, and other tests' virtual
# clusters come and go on a shared machine: follow one device-backed NIC
phys=$(for i in /sys/class/net/*; do [ -L "$i" ] && ! readlink "$i" | grep -q /virtual/ && basename "$i"; done | head -1)
echo "      nic_pattern: \"${phys:-*}\"" >> "$TMP/two.yaml"
$FC run --out "$TMP/left" --np 2 --profile "$TMP/two.yaml" --stages node --iters 3 \
    --env FC_TEST_MARK=1 > "$TMP/left.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^  INCOMPLETE rack default, soak stage: required stage soak was left out of this run (--stages)' "$TMP/left.out"
ok $? "a required stage left out by --stages makes the rack INCOMPLETE (rc $rc)"
jsonl "$TMP/left/certificates/default.json" 'my $c = $r[0]{certificate}; join(",", @{$c->{plan}{profile_stages}}) . "|" . join(",", @{$c->{plan}{run_stages}}) . "|" . $c->{overrides}{"--iters"} . "|" . $c->{overrides}{"--stages"} . "|" . $c->{overrides}{"--env"}[0]' > "$TMP/left.plan"
is "$(cat "$TMP/left.plan")" "node,soak|node|3|node|FC_TEST_MARK=1" \
    "the certificate lists the profile's stages, the ones run and every override"
grep -q '^overrides: --env FC_TEST_MARK=1, --iters 3, --np 2, --stages node (not the profile two-stages as written)$' "$TMP/left/summary.txt"
ok $? "the summary says overrides: ..."
grep -q '<property name="overrides" value="--env FC_TEST_MARK=1, --iters 3, --np 2, --stages node"/>' "$TMP/left/junit.xml" &&
    grep -q 'message="required stage soak was left out' "$TMP/left/junit.xml"
ok $? "JUnit carries the overrides and an error for the left-out stage"
grep -q '<b>Overrides</b> (not the profile as written): --env FC_TEST_MARK=1, --iters 3' "$TMP/left/report/index.html" &&
    grep -q '<b>Overrides</b>' "$TMP/left/report/rack-default.html"
ok $? "the HTML pages show the overrides"
$FC verify "$TMP/left/certificates/default.json" > /dev/null 2>&1
ok $? "the certificate with its plan and overrides verifies"
MPIRUN=$(command -v mpirun)
$FC run --out "$TMP/launcher" --np 2 --stages node "${SWEEP[@]}" --mpirun "$MPIRUN" > "$TMP/launcher.out" 2>&1
jsonl "$TMP/launcher/certificates/default.json" '$r[0]{certificate}{overrides}{"--mpirun"}' | grep -qx "$MPIRUN" &&
    grep -q "^overrides: .*--mpirun $MPIRUN" "$TMP/launcher/summary.txt" &&
    grep -q "<property name=\"overrides\" value=\".*--mpirun $MPIRUN" "$TMP/launcher/junit.xml" &&
    grep -q "<b>Overrides</b> (not the profile as written): .*--mpirun $MPIRUN" "$TMP/launcher/report/index.html"
ok $? "--mpirun PATH is an override: in the certificate, the summary, JUnit and the HTML"
# (--np is an override too: the default, this machine's cores, is not)
$FC run --out "$TMP/whole" --profile "$TMP/two.yaml" > "$TMP/whole.out" 2>&1
rc=$?
[ $rc -eq 0 ] && jsonl "$TMP/whole/certificates/default.json" 'scalar keys %{$r[0]{certificate}{overrides}}' | grep -qx 0 &&
    ! grep -q '^overrides' "$TMP/whole/summary.txt"
ok $? "the same profile run whole passes, with no overrides recorded (rc $rc)"
[ $rc -eq 0 ] || why "$(cat "$TMP/whole.out")"

mkdir -p "$TMP/lostone"; cp "$TMP/whole/profile.yaml" "$TMP/whole/hosts" "$TMP/lostone/"
perl -ne 'print unless /"type":"point"/ && /"stage":"node"/ && !$d++' "$TMP/whole/results.jsonl" > "$TMP/lostone/results.jsonl"
$FC report "$TMP/lostone" > "$TMP/lostone.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'required stage node has an end record that contradicts .* 1 judged record(s) written, 0 read' "$TMP/lostone.out"
ok $? "a record the stage wrote but results.jsonl lost leaves it INCOMPLETE (rc $rc)"

# judged records moved after their stage's end, the end's counts zeroed to match
mkdir -p "$TMP/afterend"; cp "$TMP/whole/profile.yaml" "$TMP/whole/hosts" "$TMP/afterend/"
perl -ne 'if (/"type":"point"/ && /"stage":"node"/) { $held .= $_; next }
    if (/"type":"stage_end"/ && /"stage":"node"/) { s/"(points|judged_records)":\d+/"$1":0/g; $_ .= $held }
    print' "$TMP/whole/results.jsonl" > "$TMP/afterend/results.jsonl"
$FC report "$TMP/afterend" > "$TMP/afterend.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^verdict: INCOMPLETE' "$TMP/afterend.out" &&
    grep -q 'record(s) in results.jsonl belong to another run or to no attempt of a stage of this plan (judged before it began, or after it ended)' "$TMP/afterend.out"
ok $? "judged records after their stage's end are misplaced, not evidence (rc $rc)"

# an end record's counts, each checked: missing, past an int, against the records
wedit() {   # wedit NAME PERL-SUBSTITUTION: report a changed copy of the whole run
    forge_report "$1" "$TMP/whole" -pe "$2"
}
wedit nojr 's/"judged_records":\d+,// if /"type":"stage_end"/ && /"stage":"node"/'
grep -q "required stage node has an end record that contradicts itself or its records (status 'ok', verdict 'PASS': its 'judged_records' is missing or not a whole number)" "$TMP/nojr.out" &&
    grep -q '^verdict: INCOMPLETE' "$TMP/nojr.out"
ok $? "an end record without judged_records contradicts itself: INCOMPLETE"
wedit fphuge 's/"failed_points":0/"failed_points":4294967296/ if /"type":"stage_end"/ && /"stage":"node"/'
grep -q "required stage node has an end record that contradicts .*4294967296 failed point(s)" "$TMP/fphuge.out" &&
    grep -q '^verdict: INCOMPLETE' "$TMP/fphuge.out"
ok $? "failed_points past an int is not cut to 0: INCOMPLETE"
wedit points 's/"points":(\d+)/"points":@{[$1 + 1]}/ if /"type":"stage_end"/ && /"stage":"node"/'
grep -q "required stage node has an end record that contradicts .* point(s) but .* judged record(s): every point has a record" "$TMP/points.out" &&
    grep -q '^verdict: INCOMPLETE' "$TMP/points.out"
ok $? "an end record counting more points than records is INCOMPLETE"

# a record that contradicts itself certifies nothing: a PASS whose
# confirmation confirmed its fault, and (below) a retest record that passes
wedit confpass 's/"verdict":"PASS"/"confirmation":{"verdict":"confirmed","text":"forged"},"verdict":"PASS"/ if /"type":"point"/ && /"stage":"node"/ && !$d++'
grep -q "INCOMPLETE rack default, node stage, measurement: a record contradicts itself (it passes though its confirmation says 'confirmed')" "$TMP/confpass.out" &&
    grep -q '^verdict: INCOMPLETE' "$TMP/confpass.out"
ok $? "a PASS whose confirmation says confirmed is a contradiction: INCOMPLETE"
$FC run --out "$TMP/rt" --np 3 --stages node "${SWEEP[@]}" --selftest-corrupt rank=1,iter=1 \
    > "$TMP/rt.out" 2>&1
mkdir -p "$TMP/rtpass"; cp "$TMP/rt/profile.yaml" "$TMP/rt/hosts" "$TMP/rtpass/"
perl -pe 's/"verdict":"FAIL"/"verdict":"PASS"/ if /"type":"retest"/' "$TMP/rt/results.jsonl" > "$TMP/rtpass/results.jsonl"
$FC report "$TMP/rtpass" > "$TMP/rtpass.out" 2>&1
rc=$?
[ "$(grep -c '"type":"retest"' "$TMP/rtpass/results.jsonl")" -ge 1 ] && [ $rc -eq 1 ] &&
    ! grep -q '^rack default: PASS' "$TMP/rtpass.out" &&
    grep -q "a retest record whose verdict is 'PASS': a retest follows an observed fault and is always a FAIL" "$TMP/rtpass.out"
ok $? "a retest record forged to PASS clears nothing: the wrong result still fails the rack (rc $rc)"

# more attempts of a stage than the verdict follows
wedit nine 'if (/"stage":"node"/ && /"type":"(stage_start|point|stage_end)"/) { my $e = /"type":"stage_end"/; $a .= $_; $_ = $e ? $a x 9 : "" }'
[ "$(grep -c '"type":"stage_start".*"stage":"node"\|"stage":"node".*"type":"stage_start"' "$TMP/nine/results.jsonl")" = 9 ] &&
    grep -q 'INCOMPLETE rack default, node stage, results: the node stage has 9 attempts in results.jsonl, more than the 8 the verdict follows (too many attempts)' "$TMP/nine.out" &&
    grep -q '^verdict: INCOMPLETE' "$TMP/nine.out"
ok $? "a stage with more attempts than the verdict follows is INCOMPLETE: too many attempts"

# 4. --backend auto falls back, and says so
$FC run --out "$TMP/auto" --np 2 --stages node --backend auto "${SWEEP[@]}" \
    --env FABCERT_GPU_PLUGIN=/nonexistent/libfabcert_gpu.so > "$TMP/auto.out" 2>&1
jsonl "$TMP/auto/certificates/default.json" 'my $b = $r[0]{certificate}{stages}[0]{backend}; "$b->{requested}>$b->{used}: $b->{fallback}"' > "$TMP/auto.be"
grep -q '^auto>mpi: --backend auto: using mpi, as host .* (rank 0) cannot use nccl: the GPU plugin /nonexistent/libfabcert_gpu.so is missing' "$TMP/auto.be"
ok $? "the certificate names the backend asked for, the one used and why ($(cut -c1-60 "$TMP/auto.be"))"
grep -q '^backend: the node stage ran on mpi: --backend auto: using mpi' "$TMP/auto/summary.txt" &&
    grep -q 'backend mpi (--backend auto: using mpi' "$TMP/auto/report/rack-default.html"
ok $? "the summary and the rack page say the stage fell back"

# how many ranks measure is an override; a node stage whose every node ran
# one rank moved nothing between ranks, and the summary says so
$FC run --out "$TMP/np1" --np 1 --ppn 1 --stages node "${SWEEP[@]}" > "$TMP/np1.out" 2>&1
rc=$?
o='--dtypes int32, --iters 2, --np 1, --ops sum, --ppn 1, --sizes 4KiB, --stages node, --warmup 1'
[ $rc -eq 0 ] && [ "$(jsonl "$TMP/np1/certificates/default.json" 'my $o = $r[0]{certificate}{overrides}; "$o->{q(--np)} $o->{q(--ppn)}"')" = "1 1" ] &&
    grep -q "^overrides: --collectives all_reduce, $o (not the profile local as written)$" "$TMP/np1/summary.txt" &&
    grep -q "<property name=\"overrides\" value=\"--collectives all_reduce, $o\"/>" "$TMP/np1/junit.xml" &&
    grep -q "<b>Overrides</b> (not the profile as written): --collectives all_reduce, $o" "$TMP/np1/report/index.html" &&
    $FC verify "$TMP/np1/certificates/default.json" | grep -q "default.json: overrides: --collectives all_reduce, $o (not the profile local as written)"
ok $? "--np and --ppn are overrides: in the plan, the certificate, the summary, JUnit, the HTML and verify (rc $rc)"
grep -q "^note: no traffic between ranks was measured in the node stage: each node of it ran one rank, so its checks judged one rank's copies and bits, not a collective between ranks$" "$TMP/np1/summary.txt" "$TMP/np1.out" &&
    ! grep -q '^note: no traffic' "$TMP/launcher/summary.txt"
ok $? "a node stage of one rank per node says, in a line of its own, that no traffic between ranks was measured (not at --np 2)"

# a profile's backend: nccl lifted by --backend mpi (the command line wins
# in the stage): the stage measured host memory, so its racks are not PASS
cat > "$TMP/needgpu.yaml" <<'YAML'
name: needs-gpus
seed: 7
stages:
  node:
    required: true
    timeout_s: 120
    backend: nccl
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
    iters: 2
YAML
$FC run --out "$TMP/lifted" --np 2 --profile "$TMP/needgpu.yaml" --backend mpi > "$TMP/lifted.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^rack default: INCOMPLETE' "$TMP/lifted.out" &&
    grep -q '^  INCOMPLETE rack default, node stage, backend: stage node ran on mpi, but the profile says backend: nccl (--backend mpi on the command line lifted it)' "$TMP/lifted.out" &&
    jsonl "$TMP/lifted/certificates/default.json" 'my $s = $r[0]{certificate}{stages}[0]; "$s->{verdict} $s->{backend}{used}"' | grep -qx 'INCOMPLETE mpi' &&
    grep -q 'error type="INCOMPLETE" message="stage node ran on mpi, but the profile says backend: nccl' "$TMP/lifted/junit.xml"
ok $? "a stage whose profile says backend: nccl that ran on mpi (--backend mpi) is INCOMPLETE, with the reason in every report (rc $rc)"

# a rack certified on part of its hosts: a rack map of 32 hosts for r01, a
# host list (an allocation) of one of them; r02, none of whose hosts runs,
# is not reported at all
hostname > "$TMP/onehost"
printf 'r01: %s ghost[01-31]\nr02: ghost[40-41]\n' "$(hostname)" > "$TMP/bigracks"
$FC run --out "$TMP/partrack" --hosts "$TMP/onehost" --racks "$TMP/bigracks" --stages node \
    "${SWEEP[@]}" > "$TMP/partrack.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^# rack r01: 31 of the 32 hosts the rack map gives it are not in this run' "$TMP/partrack.out" &&
    grep -q "^rack r01: INCOMPLETE (1 host of the rack map's 32, 31 not in the run)$" "$TMP/partrack.out" &&
    grep -q '^  INCOMPLETE rack r01, run stage, inventory: 31 of the 32 hosts the rack map gives rack r01 were not in the run (not in the host list, or outside the allocation): the rack is tested in part: ghost01, ghost02, ' "$TMP/partrack.out" &&
    ! grep -q '^rack r02' "$TMP/partrack.out" && [ ! -e "$TMP/partrack/certificates/r02.json" ]
ok $? "a rack the run tested on 1 of its 32 hosts is INCOMPLETE, naming the others; a rack none of whose hosts ran is not reported (rc $rc)"
[ "$(jsonl "$TMP/partrack/results.jsonl" 'scalar @{(grep { $_->{type} eq "plan" } @r)[0]{inventory}{left_out}}')" = 31 ] &&
    [ "$(jsonl "$TMP/partrack/certificates/r01.json" 'join ",", @{$r[0]{certificate}{hosts_left_out}}[0, 30]')" = ghost01,ghost31 ] &&
    grep -q 'error type="INCOMPLETE" message="31 of the 32 hosts the rack map gives rack r01' "$TMP/partrack/junit.xml" &&
    $FC verify "$TMP/partrack/certificates/r01.json" | grep -q 'r01.json: 31 host(s) the rack map gives the rack were left out of the run: ghost01, '
ok $? "the plan, the certificate, JUnit and verify name the left-out hosts"
# the plan line edited to drop them (emptied, the key deleted), or the
# frozen rack map gone: report re-reads DIR/hosts and DIR/racks
for v in empty nokey noracks; do
    mkdir -p "$TMP/lo-$v"; cp "$TMP/partrack/profile.yaml" "$TMP/partrack/hosts" "$TMP/partrack/racks" "$TMP/lo-$v/"
    case $v in
    empty) perl -pe 's/"left_out":\[[^\]]*\]/"left_out":[]/ if /"type":"plan"/' ;;
    nokey) perl -pe 's/"left_out":\[[^\]]*\],?// if /"type":"plan"/' ;;
    noracks) rm "$TMP/lo-$v/racks"; cat ;;
    esac < "$TMP/partrack/results.jsonl" > "$TMP/lo-$v/results.jsonl"
    $FC report "$TMP/lo-$v" > "$TMP/lo-$v.out" 2>&1
    echo $? > "$TMP/lo-$v.rc"
done
why='^  INCOMPLETE rack r01, run stage, results: the plan record does not match the frozen inventory (hosts and racks in the output directory): '
! grep -q '"left_out":\[{' "$TMP/lo-empty/results.jsonl" && ! grep -q '"left_out"' "$TMP/lo-nokey/results.jsonl" &&
    ( for v in empty nokey noracks; do
          [ "$(cat "$TMP/lo-$v.rc")" = 1 ] && grep -q '^rack r01: INCOMPLETE' "$TMP/lo-$v.out" || exit 1
      done ) &&
    grep -q "${why}the frozen inventory leaves out ghost01 (rack r01), the plan's inventory.left_out does not" "$TMP/lo-empty.out" &&
    grep -q "${why}the frozen inventory leaves out ghost01 (rack r01), the plan's inventory.left_out does not" "$TMP/lo-nokey.out" &&
    grep -q "${why}the frozen racks file cannot be read (No such file or directory)" "$TMP/lo-noracks.out"
ok $? "the plan's left-out hosts emptied or deleted, or the frozen rack map removed: r01 stays INCOMPLETE, the report says the plan does not match the frozen inventory"

# 6. records that cannot be read; checks that were lost
GD=tests/golden/report/clean     # the clean golden run: its records,
G=$GD/results.jsonl
GP=$GD/profile.yaml              # the profile that run froze
GI="$GD/hosts $GD/racks"         # and its inventory
torn() {    # torn NAME AWK-CONDITION: a copy of the clean run with a torn
            # line inserted after the first record matching the condition
    mkdir -p "$TMP/$1"; cp "$GP" $GI "$TMP/$1/"
    awk -v cond="$2" '{ print } !done && $0 ~ cond { print "{\"type\":\"point\",\"stage\":\"pa"; done = 1 }' \
        "$G" > "$TMP/$1/results.jsonl"
    $FC report "$TMP/$1" > "$TMP/$1.out" 2>&1
}
torn mid '"type":"pair"'
rc=$?
[ $rc -eq 1 ] && grep -q '^  INCOMPLETE rack rack1, pairs stage, results: 1 record(s) of the pairs stage could not be read' "$TMP/mid.out" &&
    grep -q '^  INCOMPLETE rack rack2, pairs stage, results: 1 record' "$TMP/mid.out" && grep -q '^verdict: INCOMPLETE' "$TMP/mid.out"
ok $? "a torn line inside the pairs stage makes every rack it ran on INCOMPLETE (rc $rc)"
torn tail '"type":"stage_end","verdict":"PASS".*"stage":"cluster"|"stage":"cluster".*"type":"stage_end"'
grep -q 'cluster stage, results: 1 record(s) of the cluster stage could not be read' "$TMP/tail.out" && grep -q '^verdict: INCOMPLETE' "$TMP/tail.out"
ok $? "a torn line after the last stage's end counts against that stage"
torn early '"type":"plan"'
grep -q 'run stage, results: a record before the first stage could not be read' "$TMP/early.out" && grep -q '^verdict: INCOMPLETE' "$TMP/early.out"
ok $? "a torn line before the first stage makes the run INCOMPLETE"
is "$(jsonl "$TMP/mid/certificates/rack1.json" '$r[0]{certificate}{truncated_records}')" 1 \
    "the certificate counts the unreadable record"
mkdir -p "$TMP/whole-again" && cp "$G" "$GP" $GI "$TMP/whole-again/"
$FC report "$TMP/whole-again" > "$TMP/whole-again.out" 2>&1
ok $? "the same records whole pass"
mkdir -p "$TMP/lost"; cp "$GP" $GI "$TMP/lost/"
grep -v '"stage":"rack"' "$G" | grep -v '^$' > "$TMP/lost/results.jsonl"
grep '"stage":"rack"' "$G" | grep -E '"type":"stage_(start|end)"' >> "$TMP/lost/results.jsonl"
recount "$TMP/lost/results.jsonl"
$FC report "$TMP/lost" > "$TMP/lost.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^  INCOMPLETE rack rack1, rack stage: required stage rack finished but judged no check on this rack' "$TMP/lost.out"
ok $? "a stage that finished without a check on the rack is INCOMPLETE (rc $rc)"
# an end record that says FAIL with no failing check
mkdir -p "$TMP/failnocheck"; cp "$GP" $GI "$TMP/failnocheck/"
sed 's/\("stage":"cluster".*"status":\)"ok"/\1"fail"/; s/\("status":\)"ok"\(.*"stage":"cluster".*"type":"stage_end"\)/\1"fail"\2/' "$G" > "$TMP/failnocheck/results.jsonl"
grep -q '"status":"fail"' "$TMP/failnocheck/results.jsonl" || why "the fixture edit did not apply"
$FC report "$TMP/failnocheck" > "$TMP/failnocheck.out" 2>&1
grep -q 'required stage cluster ended FAIL without a failing check' "$TMP/failnocheck.out" && grep -q '^verdict: INCOMPLETE' "$TMP/failnocheck.out"
ok $? "a stage that ended FAIL without a failing check is INCOMPLETE, not PASS"

# 7. edits that must never come out PASS (G: the clean golden run)
edit() {    # edit NAME PERL-SUBSTITUTION-PROGRAM: report a changed copy of G
    forge_report "$1" "$GD" -pe "$2"
    echo $? > "$TMP/$1.rc"
}
verdict_of() { sed -n 's/^verdict: \([A-Z]*\).*/\1/p' "$TMP/$1.out"; }
edit nul 'if (/"stage":"node"/ && /"type":"point"/ && !$d++) { s/^/\0/ }'
[ "$(verdict_of nul)" = INCOMPLETE ] && grep -q 'node stage could not be read' "$TMP/nul.out"
ok $? "a NUL byte at the start of a record makes its stage INCOMPLETE ($(verdict_of nul))"
edit endlie 's/("failed_points":)0(.*"stage":"rack".*"status":)"ok"(.*"type":"stage_end","verdict":)"PASS"/${1}1$2"fail"$3"FAIL"/'
grep -q '"failed_points":1' "$TMP/endlie/results.jsonl" && [ "$(verdict_of endlie)" = INCOMPLETE ] &&
    grep -q 'required stage rack has an end record that contradicts itself or its records' "$TMP/endlie.out"
ok $? "an end record counting a failure that results.jsonl does not hold is INCOMPLETE"
edit foreign 'if (/"type":"pair"/ && !$d++) { s/"run_id":"[^"]*"/"run_id":"9999-1"/ }'
[ "$(verdict_of foreign)" = INCOMPLETE ] && grep -q 'belong to another run' "$TMP/foreign.out"
ok $? "a record of another run makes the run INCOMPLETE"
edit twoplans 'print if /"type":"plan"/'
[ "$(cat "$TMP/twoplans.rc")" = 2 ] && grep -q 'hold 2 plan records' "$TMP/twoplans.out"
ok $? "two plan records are refused, exit 2"
edit legacy 's/"overrides":\{[^}]*\},// if /"type":"plan"/'
[ "$(verdict_of legacy)" = INCOMPLETE ] && grep -q 'predates recording command-line overrides' "$TMP/legacy.out"
ok $? "a plan that does not record overrides cannot certify"
edit lower 'if (/"type":"point"/ && /"stage":"cluster"/ && !$d++) { s/"verdict":"PASS"/"verdict":"fail"/ }'
is "$(verdict_of lower)" FAIL "a check whose verdict is neither PASS nor INCOMPLETE fails, whatever its spelling"
edit wrongpass 'if (/"type":"point"/ && /"stage":"cluster"/ && !$d++) { s/"wrong":0/"wrong":3/; s/"digest_(ranks|reps)_agree":true/"digest_$1_agree":false/g }'
[ "$(verdict_of wrongpass)" = FAIL ] &&
    grep -q "FAIL rack rack1, cluster stage, rack: .*its own figures show wrong bits (wrong 3, digest_ranks_agree false, digest_reps_agree false), though its verdict says 'PASS'" "$TMP/wrongpass.out" &&
    jsonl "$TMP/wrongpass/certificates/rack1.json" 'my ($s) = grep { $_->{stage} eq "cluster" } @{$r[0]{certificate}{stages}}; join ",", map { "$_->{verdict}/$_->{verdict_recorded}" } grep { $_->{wrong} } @{$s->{figures}}' | grep -qx 'FAIL/PASS'
ok $? "a check whose own figures show wrong bits FAILs whatever its verdict says ($(verdict_of wrongpass))"
edit ghost 'if (/"type":"point"/ && /"stage":"cluster"/ && !$d++) { s/"verdict":"PASS"/"verdict":"FAIL"/; s/"rack":""/"rack":"ghost"/; s/"group":"[^"]*"/"group":"ghosthost"/; s/"reasons":\[\]/"reasons":["slow"]/ }'
[ "$(verdict_of ghost)" = FAIL ] &&
    grep -q "^  FAIL rack rack1, cluster stage, unplaced: a failure that names no rack of the plan (rack 'ghost', host " "$TMP/ghost.out" &&
    grep -q "^  FAIL rack rack2, cluster stage, unplaced: a failure that names no rack of the plan (rack 'ghost'" "$TMP/ghost.out"
ok $? "a failing check whose rack is no rack of the plan FAILs every rack of its attempt"
edit nohostimp 'if (/"type":"point"/ && /"stage":"rack"/ && /"rack":"rack1"/ && !$d++) { s/"verdict":"PASS"/"verdict":"FAIL"/; s/"implicates":null/"implicates":{"part":"link"}/; s/"reasons":\[\]/"reasons":["slow"]/ }'
[ "$(verdict_of nohostimp)" = FAIL ] && grep -q "^  FAIL rack rack2, rack stage, unplaced: a failure that names no rack of the plan" "$TMP/nohostimp.out"
ok $? "a failing check that implicates a part with no host or rack FAILs every rack of its attempt"
# the plan against the frozen profile it names (profile.yaml, hashed in the plan)
edit plandrop 's/,\{"name":"rack","required":true,"selected":true,"timeout_s":[0-9.]*\}// if /"type":"plan"/; $_ = "" if /"stage":"rack"/'
! grep -q '"name":"rack"' "$TMP/plandrop/results.jsonl" && [ "$(verdict_of plandrop)" = INCOMPLETE ] &&
    grep -q "^  INCOMPLETE rack rack1, run stage, results: the plan record does not match the frozen profile (profile.yaml in the output directory): the profile has stage rack, the plan has not" "$TMP/plandrop.out"
ok $? "a required stage dropped from the plan (and its records) is caught against the frozen profile"
edit planopt 's/("name":"cluster","required":)true/${1}false/ if /"type":"plan"/'
grep -q '"name":"cluster","required":false' "$TMP/planopt/results.jsonl" && [ "$(verdict_of planopt)" = INCOMPLETE ] &&
    grep -q "the profile's stage cluster is required, the plan's optional" "$TMP/planopt.out"
ok $? "a required stage marked optional in the plan is caught against the frozen profile"
mkdir -p "$TMP/noprofile"; cp "$G" "$TMP/noprofile/results.jsonl"; cp $GI "$TMP/noprofile/"
$FC report "$TMP/noprofile" > "$TMP/noprofile.out" 2>&1
[ $? -eq 1 ] && grep -q "the plan record does not match the frozen profile (profile.yaml in the output directory): it cannot be read (No such file or directory)" "$TMP/noprofile.out"
ok $? "without the frozen profile the plan cannot be checked: INCOMPLETE"
edit orphan 'if (/"type":"plan"/) { $_ .= q({"type":"point","stage":"cluster","run_id":"1796211956-15169","verdict":"FAIL","implicates":{"part":"cluster"}}) . "\n" }'
[ "$(verdict_of orphan)" = INCOMPLETE ] && grep -q 'to no attempt of a stage' "$TMP/orphan.out"
ok $? "a judged record before its stage began is not ignored"
edit unplanned 'if (/"type":"stage_end"/ && /"stage":"cluster"/) { $_ .= q({"type":"stage_start","stage":"contention","run_id":"1796211956-15169","rank_hosts":["fcv01"]}) . "\n" . q({"type":"point","stage":"contention","run_id":"1796211956-15169","rack":"rack1","verdict":"PASS"}) . "\n" }'
[ "$(verdict_of unplanned)" = INCOMPLETE ] && grep -q 'to no attempt of a stage of this plan' "$TMP/unplanned.out"
ok $? "the judged records of a stage the plan does not have are misplaced, not evidence"
# forged or misplaced records (the record-type table says who writes each
# type, and which may follow a stage's end): rack2's node checks removed,
# the counts made to match, and two of them put back labelled as the
# retest's after the end, or as the runner's inside the attempt
forge() {   # forge NAME WHERE SOURCE: rack2's node points, two of them back
    forge_report --recount "$1" "$GD" -ne 'BEGIN { ($where, $src) = splice @ARGV, 0, 2 }
        if (/"type":"point"/ && /"stage":"node"/ && /"rack":"rack2"/) { $n++ < 2 and push @p, $_; next }
        if (/"type":"stage_end"/ && /"stage":"node"/) { s/^\{/{"source":"$src",/ for @p;
            print @p if $where eq "in"; print; print @p if $where eq "after"; next }
        print' "$2" "$3"
}
forge retestlabel after retest
[ "$(verdict_of retestlabel)" = INCOMPLETE ] && ! grep -q '^rack rack2: PASS' "$TMP/retestlabel.out" &&
    grep -q 'INCOMPLETE rack rack2, run stage, results: 2 record(s) in results.jsonl name a writer (`source`) that never writes their type' "$TMP/retestlabel.out"
ok $? "a stage's checks after its end labelled as the retest's are not evidence: rack2 INCOMPLETE, not PASS"
forge runnerlabel in runner
[ "$(verdict_of runnerlabel)" = INCOMPLETE ] && ! grep -q '^rack rack2: PASS' "$TMP/runnerlabel.out" &&
    grep -q 'INCOMPLETE rack rack2, run stage, results: 2 record(s) in results.jsonl name a writer (`source`) that never writes their type' "$TMP/runnerlabel.out" &&
    grep -q 'INCOMPLETE rack rack2, node stage: required stage node has an end record that contradicts .*10 judged record(s) written, 8 read' "$TMP/runnerlabel.out"
ok $? "a stage's checks inside its attempt labelled as the runner's are not evidence and do not escape the record count"
edit lateschedule 'if (/"type":"pairs_schedule"/) { $s = $_ } if (/"type":"stage_end"/ && /"stage":"pairs"/) { $_ .= $s }'
[ "$(grep -c '"type":"pairs_schedule"' "$TMP/lateschedule/results.jsonl")" = 2 ] && [ "$(verdict_of lateschedule)" = INCOMPLETE ] &&
    grep -q '1 record(s) in results.jsonl belong to another run or to no attempt' "$TMP/lateschedule.out"
ok $? "a record only the stage writes (its schedule) after the stage's end is misplaced"
edit dupkey 'if (/"type":"point"/ && /"stage":"cluster"/ && !$d++) { s/"verdict":"PASS"/"verdict":"FAIL","verdict":"PASS"/ }'
grep -q '"verdict":"FAIL","verdict":"PASS"' "$TMP/dupkey/results.jsonl" && [ "$(verdict_of dupkey)" = INCOMPLETE ] &&
    grep -q 'cluster stage, results: 1 record(s) of the cluster stage could not be read' "$TMP/dupkey.out"
ok $? "a record with a key given twice cannot be read: its stage is INCOMPLETE"
# an nccl stage with fewer ranks on a host than its GPUs tested some of
# them only: the devices record of a node stage at --ppn 2, on 8-GPU hosts
# in rack1, a host of 4 GPUs using GPUs 0 and 2 in rack2 (the GPU plugin
# cannot run here: the record is written as the stage writes it)
edit gpus 'if (/"type":"stage_start"/ && /"stage":"node"/) { s/"backend":"mpi"/"backend":"nccl"/;
    my @h = ("fcv01", "fcv02", "fcv03", "fcv04"); my %vis = (fcv01 => 8, fcv02 => 8, fcv03 => 4, fcv04 => 2);
    my $d = join ",", map { my $h = $h[$_ % 4]; sprintf q({"device":%d,"host":"%s","rank":%d,"visible_gpus":%d}),
        ($h eq "fcv03" ? 2 : 1) * int($_ / 4), $h, $_, $vis{$h} } 0..7;
    $_ .= q({"devices":[) . $d . q(],"run_id":"1796211956-15169","stage":"node","type":"devices"}) . "\n" }'
[ "$(verdict_of gpus)" = INCOMPLETE ] &&
    grep -q '^  INCOMPLETE rack rack1, node stage, gpus fcv01: the node stage ran 2 rank(s) on host fcv01, which has 8 GPU(s) visible: GPU(s) 2-7 were not tested (run it with --ppn 8, one rank per GPU)$' "$TMP/gpus.out" &&
    grep -q '^  INCOMPLETE rack rack2, node stage, gpus fcv03: .* which has 4 GPU(s) visible: GPU(s) 1, 3 were not tested' "$TMP/gpus.out" &&
    ! grep -q 'gpus fcv04' "$TMP/gpus.out" &&
    grep -q 'error type="INCOMPLETE" message="the node stage ran 2 rank(s) on host fcv02, which has 8 GPU(s) visible' "$TMP/gpus/junit.xml"
ok $? "an nccl stage with fewer ranks than GPUs on a host certifies none of its untested GPUs: INCOMPLETE, naming them"
edit badplan 's/"required":true/"required":"true"/ if /"type":"plan"/'
[ "$(cat "$TMP/badplan.rc")" = 2 ] && grep -q "malformed" "$TMP/badplan.out"
ok $? "a plan whose required is not a boolean is refused, exit 2"
edit duphost 's/\{"host":"fcv02","rack":"rack1"\}/{"host":"fcv02","rack":"rack1"},{"host":"fcv02","rack":"rack2"}/ if /"type":"plan"/'
[ "$(cat "$TMP/duphost.rc")" = 2 ] && grep -q "the plan's inventory lists host 'fcv02' twice (in racks 'rack1' and 'rack2')" "$TMP/duphost.out"
ok $? "a plan that lists a host in two racks is refused, exit 2"
edit pathrack 's/"rack":"rack2"/"rack":"..\/..\/escaped"/g if /"type":"plan"/'
[ "$(cat "$TMP/pathrack.rc")" = 2 ] && [ ! -e "$TMP/escaped.json" ]
ok $? "a rack name that is a path is refused, exit 2, and nothing is written outside"
edit nohost 'if (/"type":"stage_start"/) { s/,"fcv02"//g; s/"fcv02",//g } $_ = "" if /"type":"(point|pair|pairs_node)"/ && /fcv02/'
recount "$TMP/nohost/results.jsonl"
$FC report "$TMP/nohost" > "$TMP/nohost.out" 2>&1
[ "$(verdict_of nohost)" = INCOMPLETE ] && grep -q 'did not run on host fcv02 of the rack' "$TMP/nohost.out" &&
    jsonl "$TMP/nohost/certificates/rack1.json" 'join(",", map { "$_->{host}=$_->{verdict}" } @{$r[0]{certificate}{nodes}})' | grep -qx 'fcv01=INCOMPLETE,fcv02=INCOMPLETE'
ok $? "a host that never ran leaves its rack and itself INCOMPLETE"
edit otherprofile 's/("profile_sha256":")89c6cf19/${1}00000000/ if /"type":"stage_start"/ && /"stage":"cluster"/'
[ "$(verdict_of otherprofile)" = INCOMPLETE ] && grep -q 'judged against a profile with sha256 00000000' "$TMP/otherprofile.out"
ok $? "a stage judged against another profile's bytes is INCOMPLETE"
cat > "$TMP/optional.yaml" <<'YAML'
name: optional-only
seed: 7
stages:
  node:
    required: false
    timeout_s: 120
    backend: nccl
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
YAML
$FC run --out "$TMP/optional" --np 2 --profile "$TMP/optional.yaml" > "$TMP/optional.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'no check judged this rack' "$TMP/optional.out"
ok $? "a rack that no check judged is INCOMPLETE, even when no stage is required (rc $rc)"

# 9. what was measured against what the plan says (the frozen profile with
# the plan's overrides, derived by the stage programs' own function): the
# reviewer's ways to shrink a sweep without a word in the plan
editc() {   # editc NAME PERL-SUBSTITUTION: edit, each stage_end recounted to match
    forge_report --recount "$1" "$GD" -pe "$2"
}
sweep='did not measure what the plan says (the frozen profile with the plan.s overrides): '
editc dropped '$_ = "" if /"type":"point"/ && /"stage":"node"/ && /"group":"fcv02"/ && /"collective":"all_gather"/'
[ "$(verdict_of dropped)" = INCOMPLETE ] && grep -q '^rack rack2: PASS' "$TMP/dropped.out" &&
    grep -q "^  INCOMPLETE rack rack1, node stage, sweep: stage node ${sweep}planned 8 points (4 on each of this rack's 2 nodes), 6 judged (first missing: all_gather float32 4 KiB on fcv02)$" "$TMP/dropped.out"
ok $? "points deleted and the end record recounted: planned 8 points, 6 judged, INCOMPLETE on their rack only"
editc iters1 'if (/"type":"point"/ && /"stage":"rack"/ && !$d++) { s/"iters":5/"iters":1/; s/"warmup":1/"warmup":0/ }'
[ "$(verdict_of iters1)" = INCOMPLETE ] &&
    grep -q "^  INCOMPLETE rack rack1, rack stage, sweep: stage rack ${sweep}1 record(s) with iters 1 where the plan says 5 (all_reduce float32 sum 4 KiB on rack1); 1 record(s) with warmup 0 where the plan says 1 " "$TMP/iters1.out"
ok $? "a point measured with fewer iterations than the plan's: iters 1 where the plan says 5, INCOMPLETE"
editc noov 's/"overrides":\{[^}]*\}/"overrides":{}/ if /"type":"plan"/'
[ "$(verdict_of noov)" = INCOMPLETE ] && ! grep -q '^overrides' "$TMP/noov.out" &&
    grep -q "^  INCOMPLETE rack rack2, node stage, sweep: stage node ${sweep}planned 60 points (30 on each of this rack's 2 nodes), 8 judged" "$TMP/noov.out" &&
    grep -q "^  INCOMPLETE rack rack1, cluster stage, sweep: stage cluster ${sweep}planned 9 points, 4 judged (first missing: all_reduce float32 sum 256 KiB on cluster)" "$TMP/noov.out"
ok $? "a plan whose overrides were removed (to read as the profile as written) no longer matches what was measured: INCOMPLETE"
editc nopair '$_ = "" if /"type":"pair"/ && /"host_a":"fcv01","host_b":"fcv04"/'
[ "$(verdict_of nopair)" = INCOMPLETE ] &&
    grep -q "^  INCOMPLETE rack rack1, pairs stage, sweep: stage pairs ${sweep}planned 5 pairs, 4 judged (first missing: pair fcv01 <-> fcv04)$" "$TMP/nopair.out" &&
    grep -q "^  INCOMPLETE rack rack2, pairs stage, sweep: stage pairs ${sweep}planned 5 pairs, 4 judged (first missing: pair fcv01 <-> fcv04)$" "$TMP/nopair.out"
ok $? "a pair record deleted: both its racks INCOMPLETE, naming the pair"
editc pairiters 'if (/"type":"pair"/ && !$d++) { s/"iters":5/"iters":2/ }'
[ "$(verdict_of pairiters)" = INCOMPLETE ] &&
    grep -q "^  INCOMPLETE rack rack1, pairs stage, sweep: stage pairs ${sweep}1 record(s) with iters 2 where the plan says 5 (pair fcv01 <-> fcv02)$" "$TMP/pairiters.out" &&
    grep -q '^rack rack2: PASS' "$TMP/pairiters.out"
ok $? "a pair measured with fewer iterations than the plan's (iters 2, the plan 5): its rack INCOMPLETE"
editc pairmode 'if (/"type":"pair"/ && !$d++) { s/"mode":"full"/"mode":"sampled"/ }'
[ "$(verdict_of pairmode)" = INCOMPLETE ] &&
    grep -q "pairs stage, sweep: stage pairs ${sweep}1 pair record(s) under another schedule than planned (first: pair fcv01 <-> fcv02: mode 'sampled' where the plan's schedule is full)$" "$TMP/pairmode.out"
ok $? "a pair record that says it was sampled under a plan of the full matrix: INCOMPLETE"
editc twice 'if (/"type":"point"/ && /"stage":"cluster"/ && !$d++) { $_ .= $_ }'
[ "$(verdict_of twice)" = INCOMPLETE ] &&
    grep -q "cluster stage, sweep: stage cluster ${sweep}1 record(s) of a point measured twice (first: all_reduce float32 sum 4 KiB on cluster)" "$TMP/twice.out"
ok $? "a point recorded twice (a measurement repeated until it passed?) is INCOMPLETE"
# a launcher earlier in PATH that quietly shrinks every stage's sweep
mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\nexec %s "$@" --iters 1 --warmup 0 --sizes 1 --collectives broadcast --dtypes uint8\n' \
    "$(command -v mpirun)" > "$TMP/fakebin/mpirun"
chmod +x "$TMP/fakebin/mpirun"
PATH="$TMP/fakebin:$PATH" $FC run --out "$TMP/wrapped" --np 2 --stages node "${SWEEP[@]}" > "$TMP/wrapped.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^rack default: INCOMPLETE' "$TMP/wrapped.out" &&
    grep -q "^  INCOMPLETE rack default, node stage, sweep: stage node ${sweep}planned 1 points on node $(hostname), 0 judged (first missing: all_reduce int32 sum 4 KiB on $(hostname)); 1 record(s) of what the plan does not have (first: broadcast uint8 1 B on $(hostname)); 1 record(s) with iters 1 where the plan says 2 (broadcast uint8 1 B on $(hostname)); 1 record(s) with warmup 0 where the plan says 1" "$TMP/wrapped.out"
ok $? "a launcher in PATH that appends --iters 1 --sizes 1 ...: INCOMPLETE, the plan's sweep and the measured one named (rc $rc)"
grep -q "^launcher: mpirun, found at $TMP/fakebin/mpirun (sha256 $(sha256sum "$TMP/fakebin/mpirun" | cut -c1-16))$" "$TMP/wrapped/summary.txt" &&
    [ "$(jsonl "$TMP/wrapped/certificates/default.json" '$r[0]{certificate}{plan}{launch}{resolved}')" = "$TMP/fakebin/mpirun" ] &&
    jsonl "$TMP/wrapped/certificates/default.json" '$r[0]{certificate}{plan}{environment}{PATH}' | grep -q "^$TMP/fakebin:" &&
    [ "$(jsonl "$TMP/wrapped/certificates/default.json" 'length $r[0]{certificate}{plan}{launch}{sha256}')" = 64 ]
ok $? "the launcher's resolved path and sha256 and PATH are in the plan and the certificate, and the summary names the wrapper"

# 10. limits judged again from each record's own figures, and each record's
# limit held to the one the frozen profile gives it
cl='if (/"type":"point"/ && /"stage":"cluster"/ && !$d++)'
edit slowpass "$cl"' { s/"median":[0-9.]+/"median":2500000.0/ }'
[ "$(verdict_of slowpass)" = FAIL ] && grep -q '^rack rack1: FAIL' "$TMP/slowpass.out" &&
    grep -q "^  FAIL rack rack1, cluster stage, rack: all_reduce float32 sum 4096 bytes on cluster: its own figures fail its limit (median 2500000.0 us is above max_latency_us 2e+06 (profile line 61)), though its verdict says 'PASS' and no confirmation alone cleared it" "$TMP/slowpass.out" &&
    jsonl "$TMP/slowpass/certificates/rack2.json" 'my ($s) = grep { $_->{stage} eq "cluster" } @{$r[0]{certificate}{stages}}; join ",", map { "$_->{verdict}/$_->{verdict_recorded}" } grep { $_->{verdict_recorded} } @{$s->{figures}}' | grep -qx 'FAIL/PASS' &&
    grep -q 'message="its own figures fail its limit (median 2500000.0 us' "$TMP/slowpass/junit.xml"
ok $? "a PASS whose own median is above its max_latency_us FAILs, in the summary, certificate and JUnit ($(verdict_of slowpass))"
edit laxlimit "$cl"' { s/"max_latency_us":2000000.0/"max_latency_us":9000000.0/ }'
[ "$(verdict_of laxlimit)" = INCOMPLETE ] &&
    grep -q "^  INCOMPLETE rack rack1, cluster stage, limit: all_reduce float32 sum 4 KiB on cluster: its limit (min -1 GB/s, max 9e+06 us, profile line 61) is not the frozen profile's (min -1 GB/s, max 2e+06 us, profile line 62): it was judged against another limit than the profile's" "$TMP/laxlimit.out"
ok $? "a record whose limit is not the one the frozen profile gives it is INCOMPLETE, naming both"
edit laxslow "$cl"' { s/"max_latency_us":2000000.0/"max_latency_us":9000000.0/; s/"median":[0-9.]+/"median":2500000.0/ }'
[ "$(verdict_of laxslow)" = FAIL ] &&
    grep -q "^  FAIL rack rack2, cluster stage, limit: all_reduce float32 sum 4 KiB on cluster: its own figures fail the frozen profile's limit (median 2500000.0 us is above max_latency_us 2e+06 (profile line 62)), though its verdict says 'PASS' and its limit (min -1 GB/s, max 9e+06 us" "$TMP/laxslow.out"
ok $? "its limit loosened to fit a slow figure: the figure against the profile's limit FAILs"
conf='"confirmation":{"verdict":"not_reproduced","rounds":[{"suspect":{"median_us":MA,"busbw_gbps":0.01}},{"suspect":{"median_us":MB,"busbw_gbps":0.01}}]},'
edit cleared "$cl"' { s/"median":[0-9.]+/"median":2500000.0/; s/"digest"/'"${conf/MA/700.0}"'"digest"/; s/MB/710.0/ }'
edit notcleared "$cl"' { s/"median":[0-9.]+/"median":2500000.0/; s/"digest"/'"${conf/MA/2400000.0}"'"digest"/; s/MB/2600000.0/ }'
grep -q '"not_reproduced"' "$TMP/cleared/results.jsonl" && [ "$(verdict_of cleared)" = PASS ] &&
    [ "$(verdict_of notcleared)" = FAIL ] && grep -q 'its own figures fail its limit (median 2500000.0 us' "$TMP/notcleared.out"
ok $? "a limit failure a confirmation alone cleared by the majority rule stands PASS; one whose alone rounds fail it too FAILs"
edit slowpair 'if (/"type":"pair"/ && !$d++) { s/"bw_gbps":[0-9.]+/"bw_gbps":0.0004/ }'
[ "$(verdict_of slowpair)" = FAIL ] &&
    grep -q "^  FAIL rack rack1, pairs stage, rack: pair fcv01 <-> fcv02: its own figures fail its limit (at 4096 bytes 0.0004 GB/s per direction is below min_bw_gbps 0.001 (profile line 34))" "$TMP/slowpair.out"
ok $? "a pair whose bandwidth at a size is below its min_bw_gbps under PASS FAILs"
mkdir -p "$TMP/drift"; cp tests/golden/report/soak-flap/{profile.yaml,hosts,racks} "$TMP/drift/"
perl -pe 's/"drift_pct":[0-9.]+/"drift_pct":2000.0/ if /"type":"point"/' tests/golden/report/soak-flap/results.jsonl > "$TMP/drift/results.jsonl"
$FC report "$TMP/drift" > "$TMP/drift.out" 2>&1
grep -q '^rack rack2: FAIL' "$TMP/drift.out" && grep -q "soak stage, rack: all_reduce float32 sum 65536 bytes on cluster: its own figures fail its limit (sustained drift 2000.0% is above max_drift_pct 1000)" "$TMP/drift.out"
ok $? "a soak point whose drift is above its max_drift_pct under PASS FAILs (rack2, which passed)"
# a superseded attempt's PASS that the profile's limit fails stays a
# failure: the cluster stage's records before a resume record that
# supersedes them, its first point judged against a looser limit
# (max_latency_us 9e9, median 3 s; the profile's: 2e6), then the attempt
# again as written
supersede() {   # supersede NAME PERL: G with its cluster attempt twice, the first edited (%o)
    forge_report "$1" "$GD" -MJSON::PP -ne 'my $j = JSON::PP->new->canonical; my $r = decode_json($_);
        if ($r->{stage} && $r->{stage} eq "cluster") { push @c, $r; next } print;
        END { for my $r (@c) { my %o = %$r; if ($o{type} eq "point" && !$d++) { '"$2"' } print $j->encode(\%o), "\n" }
            print $j->encode({ type => "resume", source => "runner", run_id => $c[0]{run_id}, time => $c[0]{time},
                               superseded => [{ stage => "cluster", attempts => 1 }] }), "\n";
            print $j->encode($_), "\n" for @c }'
}
supersede supok ''
supersede supslow '$o{limit} = { %{$o{limit}}, max_latency_us => 9e9 }; $o{time_us} = { %{$o{time_us}}, median => 3e6 }'
[ "$(verdict_of supok)" = PASS ] && [ "$(verdict_of supslow)" = FAIL ] &&
    grep -q "^  FAIL rack rack1, cluster stage, limit: all_reduce float32 sum 4 KiB on cluster: its own figures fail the frozen profile's limit (median 3000000.0 us is above max_latency_us 2e+06" "$TMP/supslow.out"
ok $? "a superseded attempt's PASS that the frozen profile's limit fails is a FAIL, not dropped by the resume"
# a figure that is not there under a limit fails it: a cluster point
# without its median (max_latency_us 2e6), a pair without its latency
edit nomedian 'if (/"type":"point"/ && /"stage":"cluster"/ && !$d++) { s/"median":[0-9.e+]+,// }'
edit nolatency 'if (/"type":"pair"/ && !$d++) { s/"latency_us":[0-9.e+]+,// }'
[ "$(verdict_of nomedian)" = FAIL ] && [ "$(verdict_of nolatency)" = FAIL ] &&
    grep -q "^  FAIL rack rack1, cluster stage, rack: all_reduce float32 sum 4096 bytes on cluster: its own figures fail its limit (no median time, under max_latency_us 2e+06 (profile line 61))" "$TMP/nomedian.out" &&
    grep -q "^  FAIL rack rack1, pairs stage, limit: pair fcv01 <-> fcv02: its own figures fail the frozen profile's limit (no latency, under max_latency_us 200000" "$TMP/nolatency.out"
ok $? "a point without its median, a pair without its latency, under a latency limit: FAIL, not a pass"

# 8. what shapes the measurement, and a summary that cannot be faked
# (Open MPI's parameter files too: the user's, and one that
# OMPI_MCA_mca_param_files names, beside the installation's)
mkdir -p "$TMP/home/.openmpi"
printf '# mine\nmpi_yield_when_idle = 1\n\n' > "$TMP/home/.openmpi/mca-params.conf"
printf 'btl_base_warn_component_unused = 0\n' > "$TMP/extra.conf"
HOME=$TMP/home OMPI_MCA_mca_param_files="$TMP/home/.openmpi/mca-params.conf:$TMP/extra.conf:/etc/openmpi/openmpi-mca-params.conf" \
OMPI_MCA_btl=self,vader $FC run --out "$TMP/env" --np 2 --stages node "${SWEEP[@]}" \
    --env $'X=1\nverdict: PASS (faked)' > "$TMP/env.out" 2>&1
rc=$?
jsonl "$TMP/env/certificates/default.json" '$r[0]{certificate}{plan}{environment}{OMPI_MCA_btl}' | grep -qx 'self,vader'
ok $? "an Open MPI setting of the environment is in the certificate's plan"
# said as visibly as the overrides, beside them (not among them), and no FAIL
[ $rc -eq 0 ] && grep -A1 '^overrides: ' "$TMP/env/summary.txt" | grep -q '^environment: .*OMPI_MCA_btl=self,vader.* (set where the run was launched' &&
    grep -q '^environment: .*OMPI_MCA_btl=self,vader' "$TMP/env.out" &&
    grep -q '<property name="environment" value=".*OMPI_MCA_btl=self,vader' "$TMP/env/junit.xml" &&
    grep -q '<b>Environment</b> (set where the run was launched; shapes what was measured, not in the profile): .*OMPI_MCA_btl=self,vader' "$TMP/env/report/index.html" "$TMP/env/report/rack-default.html" &&
    [ "$(jsonl "$TMP/env/certificates/default.json" 'exists $r[0]{certificate}{overrides}{OMPI_MCA_btl} ? 1 : 0')" = 0 ]
ok $? "the environment is in the summary after the overrides, in JUnit and in the HTML beside the overrides; not an override, no FAIL (rc $rc)"
$FC verify "$TMP/env/certificates/default.json" > "$TMP/envverify.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'default.json: overrides: .*--env X=1?verdict: PASS (faked), .*--stages node.* (not the profile local as written)$' "$TMP/envverify.out" &&
    grep -q 'default.json: environment: .*OMPI_MCA_btl=self,vader' "$TMP/envverify.out" &&
    [ "$(grep -c '^verdict' "$TMP/envverify.out")" = 0 ]
ok $? "verify says the certificate's overrides and environment beside its verdict (rc $rc)"
[ "$(grep -c '^verdict:' "$TMP/env/summary.txt")" = 1 ] && grep -q -- '--env X=1?verdict: PASS (faked)' "$TMP/env/summary.txt"
ok $? "an override's control characters cannot add a line to the summary"
envof() { jsonl "$TMP/env/certificates/default.json" "\$r[0]{certificate}{plan}{environment}{'$1'}"; }
[ "$(envof "$TMP/home/.openmpi/mca-params.conf")" = "mpi_yield_when_idle = 1 (sha256 $(sha256sum "$TMP/home/.openmpi/mca-params.conf" | cut -d' ' -f1))" ] &&
    [ "$(envof "$TMP/extra.conf")" = "btl_base_warn_component_unused = 0 (sha256 $(sha256sum "$TMP/extra.conf" | cut -d' ' -f1))" ] &&
    grep -q "^environment: .*$TMP/home/.openmpi/mca-params.conf=mpi_yield_when_idle = 1 (sha256 [0-9a-f]" "$TMP/env/summary.txt" &&
    grep -q "default.json: environment: .*$TMP/extra.conf=btl_base_warn_component_unused = 0" "$TMP/envverify.out"
ok $? "Open MPI's parameter files (\$HOME/.openmpi/mca-params.conf, one named by OMPI_MCA_mca_param_files) are in plan.environment with their settings and sha256, and said with the environment"
FAKE=$PWD/tests/fixtures/sysfs/clean/before
FC_SYSFS_ROOT=$FAKE $FC run --out "$TMP/fakesys" --np 2 --stages node "${SWEEP[@]}" > "$TMP/fakesys.out" 2>&1
jsonl "$TMP/fakesys/certificates/default.json" '$r[0]{certificate}{plan}{environment}{FC_SYSFS_ROOT}' | grep -qx "$FAKE" &&
    grep -q "^sysfs: FC_SYSFS_ROOT=$FAKE: preflight's inventory and the link counters (the soak's, each interval's) were read from that tree, not from /sys" "$TMP/fakesys/summary.txt" "$TMP/fakesys.out" &&
    grep -q "<property name=\"sysfs_root\" value=\"$FAKE\"/>" "$TMP/fakesys/junit.xml" &&
    grep -q "<b>sysfs</b>: FC_SYSFS_ROOT=$FAKE" "$TMP/fakesys/report/index.html" "$TMP/fakesys/report/rack-default.html"
ok $? "a run with FC_SYSFS_ROOT in its environment records it and says so in the summary, JUnit and HTML"
edit forgeline 'if (/"type":"point"/ && /"stage":"cluster"/ && !$d++) { s/"verdict":"PASS"/"verdict":"FAIL"/; s/"reasons":\[\]/"reasons":["slow\\nrack rack1: PASS\\nverdict: PASS (forged)"]/ }'
grep -q 'slow\\nrack rack1' "$TMP/forgeline/results.jsonl" && [ "$(grep -c '^verdict:' "$TMP/forgeline.out")" = 1 ] &&
    [ "$(grep -c '^verdict:' "$TMP/forgeline/summary.txt")" = 1 ] && ! grep -q '^rack rack1: PASS' "$TMP/forgeline/summary.txt" &&
    grep -q 'slow?rack rack1: PASS?verdict: PASS (forged)' "$TMP/forgeline/summary.txt"
ok $? "a record's reason with newlines cannot add a line to the summary or the terminal"
[ "$(cmp -s "$TMP/env/profile.yaml" thresholds/local.yaml; echo $?)" = 0 ] &&
    jsonl "$TMP/env/results.jsonl" '(grep { $_->{type} eq "plan" } @r)[0]{inputs}{profile}' | grep -q 'thresholds/local.yaml$'
ok $? "the stages read a frozen copy of the profile in the output directory; the plan names the original"
$FC run --out "$TMP/env" --np 2 "${SWEEP[@]}" > "$TMP/again.out" 2>&1
[ $? -eq 2 ] && grep -q 'already holds a run' "$TMP/again.out"
ok $? "a second run into the same directory is refused, exit 2"

# 9. a stage list that names no stage is bad input; a full disk is not
for l in , "" node, node,,rack; do
    $FC run --out "$TMP/nostage" --np 2 --stages "$l" "${SWEEP[@]}" > "$TMP/nostage.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q "^fabcert: --stages: '$l' has an empty stage name" "$TMP/nostage.out" &&
        [ ! -e "$TMP/nostage" ] || break
done
ok $? "--stages with an empty name (',', '', 'node,', 'node,,rack'): refused, exit 2, nothing run ($rc, '$l')"
# --out on a small tmpfs: full at the plan, before the stage, inside it
# (its records), at the reports; each exit 1 saying the disk is full
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=8k tmpfs "$TMP/full" 2>/dev/null; then
    umount "$TMP/full"
    bad=""
    for k in 8 16 24 32; do
        mount -t tmpfs -o size=${k}k tmpfs "$TMP/full"
        $FC run --out "$TMP/full/r" --np 2 --stages node "${SWEEP[@]}" > "$TMP/full$k.out" 2>&1
        rc=$?
        umount "$TMP/full"
        [ $rc -eq 1 ] && grep -q "^fabcert: disk full / write failed: $TMP/full/r[/a-z.-]*: No space left on device" "$TMP/full$k.out" &&
            grep -q "^fabcert: the run stopped: not everything it writes under $TMP/full/r could be written" "$TMP/full$k.out" &&
            ! grep -q 'HANG\|^verdict:\|rejected its input' "$TMP/full$k.out" || bad="$bad ${k}k:$rc"
    done
    [ -z "$bad" ]
    ok $? "--out on a full tmpfs of 8, 16, 24 and 32 KiB: exit 1, \"disk full / write failed: FILE: No space left on device\", no HANG, no verdict ($bad)"
else
    ok 0 "# SKIP cannot mount a tmpfs here"
fi

done_testing
