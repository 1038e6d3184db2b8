# tap.sh - a few TAP helpers for the shell end-to-end tests, sourced by
# every tests/e2e/*.t. Runs from the repository root (make check does).
# Open MPI refuses root without these; the tests run as root in CI.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# this machine has no fabric for the cm point-to-point layer: name ob1,
# which Open MPI would pick anyway, and spare every rank's start the
# probing (MPI_Init of 4 local ranks: 0.43 s to 0.22 s)
export OMPI_MCA_pml=ob1
# the tests' ranks share this machine's 2 CPUs with other tests' (make
# check's lanes): a rank waiting in MPI yields its CPU between polls, as
# fabcert run sets by itself only where its own ranks outnumber its CPUs
export OMPI_MCA_mpi_yield_when_idle=1
FC_TESTS_RUN=0
FC_TESTS_FAILED=0
BUILD=${BUILD:-build}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fabcert-test.XXXXXX")
# KEEP=1 keeps a test's files for a look after it
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

plan() { echo "1..$1"; }
ok() {  # ok CONDITION-EXIT-STATUS DESCRIPTION
    FC_TESTS_RUN=$((FC_TESTS_RUN + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $FC_TESTS_RUN - $2"
    else
        echo "not ok $FC_TESTS_RUN - $2"
        FC_TESTS_FAILED=$((FC_TESTS_FAILED + 1))
    fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# why TEXT...: a failed check's diagnostics, on standard error, which
# prove shows without -v (make check's log keeps them; diag's go to
# standard output with the TAP, seen only with -v)
why() { printf '%s\n' "$@" | sed 's/^/# /' >&2; }
# is GOT WANTED DESCRIPTION: ok when the two strings are equal; otherwise
# not ok, and what was got and wanted as diagnostics
is() {
    if [ "$1" = "$2" ]; then
        ok 0 "$3"
    else
        ok 1 "$3"
        why "    got: '$1'" " wanted: '$2'"
    fi
}
# check DESCRIPTION COMMAND...: ok if the command succeeds
check() { local d=$1; shift; "$@"; ok $? "$d"; }
done_testing() { [ "$FC_TESTS_FAILED" -eq 0 ]; }
# json_get FILE PERL-EXPR: evaluate EXPR over the records of a JSONL file
# ($r is each record, @r all of them); prints the result
jsonl() {
    perl -MJSON::PP -e 'my @r; open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!";
        while (<$f>) { push @r, JSON::PP::decode_json($_) } print eval($ARGV[1]), "\n";
        die $@ if $@' "$1" "$2"
}

recount() {     # recount FILE: each stage_end counts the records its attempt
                # now holds, as a stage that wrote no more would (a fixture
                # that drops or adds records on purpose, and is not about
                # lost ones: integrity.t, blame_slow.t)
    perl -i -MJSON::PP -ne 'my $r = eval { decode_json($_) }; my $s = $r ? $r->{stage} // "" : "";
        if ($r && $r->{type} eq "stage_start") { $n{$s} = $np{$s} = 0; $open{$s} = 1 }
        elsif ($r && $r->{type} eq "stage_end") { $open{$s} = 0;
            s/"judged_not_pass":\d+/"judged_not_pass":$np{$s}/; s/"judged_records":\d+/"judged_records":$n{$s}/;
            s/"points":(\d+)/"points":@{[$1 < $n{$s} ? $1 : $n{$s}]}/; s/"failed_points":(\d+)/"failed_points":@{[$1 < $np{$s} ? $1 : $np{$s}]}/ }
        elsif ($r && $open{$s} && exists $r->{verdict} &&
               $r->{type} !~ /^(hang|crash|retest|quarantine|stage_error|stage_skip|probe|plan)$/) {
            $n{$s}++; $np{$s}++ if $r->{verdict} ne "PASS" }
        print' "$1"
}

# forge_report [--recount] NAME FROM PERL-ARG...: a copy of the run in
# directory FROM as $TMP/NAME, its records edited, then `fabcert report`
# over it, its output in $TMP/NAME.out; returns the report's exit status.
# The copy holds what the report reads: FROM's frozen profile.yaml, hosts
# and racks (those FROM has) and results.jsonl, written by
# `perl PERL-ARG... FROM/results.jsonl` (e.g. -pe 's/.../.../'); with
# --recount, each stage_end then counts the records it holds (recount).
# The forgeries of integrity.t, overlap.t, scaling.t, long_run.t,
# contention.t, soak.t and vcluster.t: records edited as a forger would.
forge_report() {
    local again=0 name from f
    [ "$1" = --recount ] && { again=1; shift; }
    name=$1 from=$2; shift 2
    mkdir -p "$TMP/$name"
    for f in profile.yaml hosts racks; do
        [ ! -e "$from/$f" ] || cp "$from/$f" "$TMP/$name/"
    done
    perl "$@" "$from/results.jsonl" > "$TMP/$name/results.jsonl"
    [ $again -eq 0 ] || recount "$TMP/$name/results.jsonl"
    ${FC:-$BUILD/fabcert} report "$TMP/$name" > "$TMP/$name.out" 2>&1
}

# cost DIR: what confirmation before blame cost the run in DIR, from its
# records: the stages' own time (stage_end seconds), of which their
# confirmations alone (confirm_seconds), and the retests' launches
# (retest_launch seconds, start-up and end included); one line
cost() {
    jsonl "$1/results.jsonl" 'my ($s, $c, $t, $n) = (0, 0, 0, 0);
        for (@r) { if ($_->{type} eq "stage_end") { $s += $_->{seconds} // 0; $c += $_->{confirm_seconds} // 0 }
                   if ($_->{type} eq "retest_launch") { $t += $_->{seconds}; ++$n } }
        sprintf "stages %.1f s, of which confirmations alone %.1f s; %d retest launch(es) %.1f s", $s, $c, $n, $t'
}

# rec OUT PERL-EXPR: PERL-EXPR over the records of the run in $TMP/OUT (jsonl)
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }
# quarantined OUT: the hosts the run in $TMP/OUT quarantined, in order
quarantined() { rec "$1" 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r'; }

# vcluster_run OUT [fabcert run options]: `fabcert run` inside the virtual
# cluster's first node (vcluster_up), on its hosts and racks, into
# $TMP/OUT; its stdout and stderr in $TMP/OUT.out and $TMP/OUT.err
vcluster_run() {
    local out=$1; shift
    $VC --name $NAME exec ${NAME}01 ${FC:-$BUILD/fabcert} run --hosts "$D/hosts" \
        --racks "$D/racks" --out "$TMP/$out" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err"
}

# vcluster_up PREFIX [NODES [RAILS]]: build a virtual cluster for this test, of
# 2 racks x 2 nodes or of the racks NODES lists (e.g. 2,3,1: uneven racks),
# with RAILS NICs per node (default 1) (runners/vcluster), named PREFIX plus a random number, or skip the
# whole test with the reason (not root, a tool missing, no namespaces).
# Sets VC, NAME and D (its files), exports its mpirun settings, and tears
# it down at exit, after vcluster_cleanup if the test defines one. KEEP=1
# keeps $TMP for a look afterwards.
vcluster_up() {
    VC=runners/vcluster
    if [ "$(id -u)" != 0 ]; then
        echo "1..0 # SKIP needs root for network namespaces (CI runs as root)"; exit 0
    fi
    for tool in ip tc nsenter unshare; do
        command -v $tool > /dev/null ||
            { echo "1..0 # SKIP $tool is missing (make deps installs it)"; exit 0; }
    done
    # tests run in parallel (make check's lanes), and other users' clusters
    # may exist: a name already taken is drawn again, never torn down
    trap 'declare -F vcluster_cleanup > /dev/null && vcluster_cleanup
          [ -z "${VC_OWNED:-}" ] || $VC --name $NAME down > /dev/null 2>&1
          [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
    local try
    for try in 1 2 3 4 5 6 7 8; do
        NAME=$1$((RANDOM % 10000)) VC_OWNED=1
        $VC --name $NAME up --racks 2 --nodes "${2:-2}" ${3:+--rails "$3"} > "$TMP/up.out" 2>&1 && break
        if ! grep -q "^vcluster: cluster '$NAME' exists" "$TMP/up.out"; then
            # (the trap removes whatever was half built)
            echo "1..0 # SKIP cannot build the virtual cluster: $(tail -1 "$TMP/up.out")"; exit 0
        fi
        VC_OWNED=   # another's: left alone, another name drawn
    done
    [ -n "$VC_OWNED" ] ||
        { echo "1..0 # SKIP no free virtual cluster name: $(tail -1 "$TMP/up.out")"; exit 0; }
    D=$($VC --name $NAME dir)
    . "$D/env"
}
