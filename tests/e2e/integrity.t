#!/bin/bash
# integrity.t - a PASS only from evidence, and a certificate that says what
# ran (issue 10, items 1-4 and 6), each case planted from outside the code
# that judges it:
#   - a GPU backend whose init fails on every rank (a stand-in plugin, as a
#     dead NVLink or HCA makes ncclCommInitRank fail): the stage ends with
#     no check, the rack is INCOMPLETE with the stage's own error, exit 1;
#   - a required stage left out with --stages: INCOMPLETE, naming it;
#   - command-line overrides: in the plan, the certificate, the summary,
#     the JUnit properties and the HTML;
#   - --backend auto falling back to mpi: the backend each stage used, what
#     was asked and why it fell back, in the certificate and the summary;
#   - records that cannot be read (a torn line inside a stage, after the
#     last stage, before the first) and a stage whose checks were lost:
#     INCOMPLETE, never PASS; the same records whole still PASS.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 19
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
      duration_s: 2
      window_s: 1
      max_drift_pct: 100000
YAML
$FC run --out "$TMP/left" --np 2 --profile "$TMP/two.yaml" --stages node --iters 3 \
    --env FC_TEST_MARK=1 > "$TMP/left.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^  INCOMPLETE rack default, soak stage: required stage soak was left out of this run (--stages)' "$TMP/left.out"
ok $? "a required stage left out by --stages makes the rack INCOMPLETE (rc $rc)"
jsonl "$TMP/left/certificates/default.json" 'my $c = $r[0]{certificate}; join(",", @{$c->{plan}{profile_stages}}) . "|" . join(",", @{$c->{plan}{run_stages}}) . "|" . $c->{overrides}{"--iters"} . "|" . $c->{overrides}{"--stages"} . "|" . $c->{overrides}{"--env"}[0]' > "$TMP/left.plan"
[ "$(cat "$TMP/left.plan")" = "node,soak|node|3|node|FC_TEST_MARK=1" ]
ok $? "the certificate lists the profile's stages, the ones run and every override ($(cat "$TMP/left.plan"))"
grep -q '^overrides: --env FC_TEST_MARK=1, --iters 3, --stages node (not the profile two-stages as written)$' "$TMP/left/summary.txt"
ok $? "the summary says overrides: ..."
grep -q '<property name="overrides" value="--env FC_TEST_MARK=1, --iters 3, --stages node"/>' "$TMP/left/junit.xml" &&
    grep -q 'message="required stage soak was left out' "$TMP/left/junit.xml"
ok $? "JUnit carries the overrides and an error for the left-out stage"
grep -q '<b>Overrides</b> (not the profile as written): --env FC_TEST_MARK=1, --iters 3' "$TMP/left/report/index.html" &&
    grep -q '<b>Overrides</b>' "$TMP/left/report/rack-default.html"
ok $? "the HTML pages show the overrides"
$FC verify "$TMP/left/certificates/default.json" > /dev/null 2>&1
ok $? "the certificate with its plan and overrides verifies"
$FC run --out "$TMP/whole" --np 2 --profile "$TMP/two.yaml" > "$TMP/whole.out" 2>&1
rc=$?
[ $rc -eq 0 ] && jsonl "$TMP/whole/certificates/default.json" 'scalar keys %{$r[0]{certificate}{overrides}}' | grep -qx 0 &&
    ! grep -q '^overrides' "$TMP/whole/summary.txt"
ok $? "the same profile run whole passes, with no overrides recorded (rc $rc)"

# 4. --backend auto falls back, and says so
$FC run --out "$TMP/auto" --np 2 --stages node --backend auto "${SWEEP[@]}" \
    --env FABCERT_GPU_PLUGIN=/nonexistent/libfabcert_gpu.so > "$TMP/auto.out" 2>&1
jsonl "$TMP/auto/certificates/default.json" 'my $b = $r[0]{certificate}{stages}[0]{backend}; "$b->{requested}>$b->{used}: $b->{fallback}"' > "$TMP/auto.be"
grep -q '^auto>mpi: --backend auto: using mpi, as host .* (rank 0) cannot use nccl: the GPU plugin /nonexistent/libfabcert_gpu.so is missing' "$TMP/auto.be"
ok $? "the certificate names the backend asked for, the one used and why ($(cut -c1-60 "$TMP/auto.be"))"
grep -q '^backend: the node stage ran on mpi: --backend auto: using mpi' "$TMP/auto/summary.txt" &&
    grep -q 'backend mpi (--backend auto: using mpi' "$TMP/auto/report/rack-default.html"
ok $? "the summary and the rack page say the stage fell back"

# 6. records that cannot be read; checks that were lost
G=tests/golden/report/clean/results.jsonl
torn() {    # torn NAME AWK-CONDITION: a copy of the clean run with a torn
            # line inserted after the first record matching the condition
    mkdir -p "$TMP/$1"
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
jsonl "$TMP/mid/certificates/rack1.json" '$r[0]{certificate}{truncated_records}' | grep -qx 1
ok $? "the certificate counts the unreadable record"
mkdir -p "$TMP/whole-again" && cp "$G" "$TMP/whole-again/"
$FC report "$TMP/whole-again" > "$TMP/whole-again.out" 2>&1
ok $? "the same records whole pass"
mkdir -p "$TMP/lost"
grep -v '"stage":"rack"' "$G" | grep -v '^$' > "$TMP/lost/results.jsonl"
grep '"stage":"rack"' "$G" | grep -E '"type":"stage_(start|end)"' >> "$TMP/lost/results.jsonl"
$FC report "$TMP/lost" > "$TMP/lost.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^  INCOMPLETE rack rack1, rack stage: required stage rack finished but judged no check on this rack' "$TMP/lost.out"
ok $? "a stage that finished without a check on the rack is INCOMPLETE (rc $rc)"
# an end record that says FAIL with no failing check
mkdir -p "$TMP/failnocheck"
sed 's/\("stage":"cluster".*"status":\)"ok"/\1"fail"/; s/\("status":\)"ok"\(.*"stage":"cluster".*"type":"stage_end"\)/\1"fail"\2/' "$G" > "$TMP/failnocheck/results.jsonl"
grep -q '"status":"fail"' "$TMP/failnocheck/results.jsonl" || diag "the fixture edit did not apply"
$FC report "$TMP/failnocheck" > "$TMP/failnocheck.out" 2>&1
grep -q 'required stage cluster ended FAIL without a failing check' "$TMP/failnocheck.out" && grep -q '^verdict: INCOMPLETE' "$TMP/failnocheck.out"
ok $? "a stage that ended FAIL without a failing check is INCOMPLETE, not PASS"

done_testing
