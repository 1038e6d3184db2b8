# tap.sh - a few TAP helpers for the shell end-to-end tests, sourced by
# every tests/e2e/*.t. Runs from the repository root (make check does).
# Open MPI refuses root without these; the tests run as root in CI.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
FC_TESTS_RUN=0
FC_TESTS_FAILED=0
BUILD=${BUILD:-build}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fabcert-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

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
