# uneven_plan.sh - what uneven_racks.t and uneven_faults.t share: a
# virtual cluster of racks of 5, 3 and 1 nodes (runners/vcluster), each
# run's profile thresholds/vcluster.yaml cut to the stages it runs, at one
# size (64 KiB, where the relative rules apply), three collectives and 3
# iterations, and the helpers that run fabcert inside it and read its
# records. Sourced after tap.sh; then uneven_plan_up PREFIX, and plan N.
FC=$BUILD/fabcert
uneven_plan_up() {  # uneven_plan_up PREFIX: the cluster and its hosts' names
    vcluster_up "$1" 5,3,1
    H1=${NAME}01 H2=${NAME}02 H6=${NAME}06 H9=${NAME}09
}
# profile STAGES: thresholds/vcluster.yaml with only these stages (a
# required stage left out would make every rack INCOMPLETE)
profile() {
    perl -ne 'BEGIN { %k = map { $_ => 1 } split /,/, shift }
        $in = $1 if /^  (\w+):$/; $in = "" if /^\S/;
        s/max_below_median_pct: 80/max_below_median_pct: 95/ if $in eq "pairs";
        print if $in eq "" || $k{$in}' "$1" thresholds/vcluster.yaml > "$TMP/$1.yaml"
}
run() {     # run OUT-NAME PPN STAGES [fabcert run options]: inside the first node
    local out=$1 ppn=$2 stages=$3; shift 3
    profile $stages
    $VC --name $NAME exec ${NAME}01 $FC run --hosts "${HOSTS:-$D/hosts}" --racks "$D/racks" \
        --ppn $ppn --profile "$TMP/$stages.yaml" \
        --sizes 64KiB --iters 3 --collectives all_reduce,all_gather,broadcast \
        --dtypes float32 --ops sum --out "$TMP/$out" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err"
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }    # rec OUT PERL-EXPR
racks_are() {   # racks_are OUT V1 V2 V3: the verdicts of rack1..rack3
    grep -q "^rack rack1: $2" "$TMP/$1.out" && grep -q "^rack rack2: $3" "$TMP/$1.out" &&
        grep -q "^rack rack3: $4" "$TMP/$1.out"
}

