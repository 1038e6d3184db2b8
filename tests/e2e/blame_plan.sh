# blame_plan.sh - what blame_clean.t and blame_slow.t share: a virtual
# cluster of uneven racks (2, 3 and 1 nodes, two ranks per node) that runs
# tests/profiles/blame_plan.yaml, and the helpers that run fabcert inside
# it and read its records. Sourced after tap.sh; the test then calls
# blame_plan_up PREFIX, and plan N after it (vcluster_up may skip the test).
FC=$BUILD/fabcert
INJ=$PWD/$BUILD/libfc_inject.so
repeat=${FC_E2E_REPEAT:-0}
case $repeat in
    ''|*[!0-9]*) echo "Bail out! FC_E2E_REPEAT='$repeat': the number of extra runs, a whole number"; exit 2 ;;
esac
runs=$((repeat + 1))
blame_plan_up() {   # blame_plan_up PREFIX: the cluster, its hosts' names, the plan
    vcluster_up "$1" 2,3,1
    H1=${NAME}01 H2=${NAME}02 H4=${NAME}04 H5=${NAME}05
    cp tests/profiles/blame_plan.yaml "$TMP/plan.yaml"
}
# one_stage NAME: the plan with only that stage (the others left out of the
# profile, so the racks are not INCOMPLETE for want of them)
one_stage() {
    perl -ne 'BEGIN { $k = shift } $in = $1 if /^  (\w+):$/; $in = "" if /^\S/;
        print if $in eq "" || $in eq $k' "$1" "$TMP/plan.yaml" > "$TMP/$1.yaml"
}
# sampled_plan: the pairs stage alone, sampled (mode: sampled, K by
# default: 3, raised to 5 rounds so that the rack of 2 meets 2 partners)
sampled_plan() {
    one_stage pairs
    perl -pe 's/^  pairs:$/  pairs:\n    mode: sampled/' "$TMP/pairs.yaml" > "$TMP/sampled.yaml"
}
run() {     # run OUT PROFILE [fabcert run options]: inside the first node
    local out=$1 prof=$2; shift 2
    local t0=$SECONDS
    $VC --name $NAME exec ${NAME}01 $FC run --hosts "$D/hosts" --racks "$D/racks" --ppn 2 \
        --profile "$prof" --out "$TMP/$out" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err"
    local rc=$?
    echo $((SECONDS - t0)) > "$TMP/$out.secs"
    return $rc
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }
racks_are() {   # racks_are OUT V1 V2 V3
    grep -q "^rack rack1: $2" "$TMP/$1.out" && grep -q "^rack rack2: $3" "$TMP/$1.out" &&
        grep -q "^rack rack3: $4" "$TMP/$1.out"
}
quarantined() { rec "$1" 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r'; }

