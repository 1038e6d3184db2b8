#!/bin/bash
# rdma_checks.t - tests/rdma/run-rdma-checks where it cannot measure (no
# root, no cluster; ~3 s): it must skip in the TAP convention, exit 0, and
# say why, never pass or fail:
#   - this machine (no /sys/class/infiniband here: else that point skips);
#   - a sysfs root without RDMA (tests/fixtures/sysfs/rdma-none);
#   - the fixture tree of mlx5/mlx4 devices (tests/fixtures/sysfs/rdma):
#     the ACTIVE ports are listed and each is run through rdma_pair under
#     mpirun with 2 ranks, where the verbs transport skips: libibverbs
#     cannot open what the fixture names (mlx5_0), and mlx5_3 has no RoCE
#     v2 IPv4 GID; the DOWN ports are listed, not run.
# Then the transport's set-up against stand-in libibverbs calls
# (build/tests/verbs_setup, 2 ranks, on the same fixture): its 11 points
# relayed one for one, and one that it ran them all and exited 0.
. tests/e2e/tap.sh
plan 18
R=tests/rdma/run-rdma-checks

if [ -e /sys/class/infiniband ]; then
    echo "ok 1 # SKIP this machine has /sys/class/infiniband"; FC_TESTS_RUN=1
else
    out=$(FC_SYSFS_ROOT= $R 2>&1); rc=$?
    is "$rc: $out" "0: 1..0 # SKIP no RDMA device here (no /sys/class/infiniband: no RDMA driver loaded)" \
        "this machine: a skip naming the missing /sys/class/infiniband, exit 0"
fi
out=$(FC_SYSFS_ROOT=tests/fixtures/sysfs/rdma-none $R 2>&1); rc=$?
is "$rc: $out" "0: 1..0 # SKIP no RDMA device here (no tests/fixtures/sysfs/rdma-none/class/infiniband: no RDMA driver loaded)" \
    "a root without RDMA: the same skip, exit 0"

FC_SYSFS_ROOT=tests/fixtures/sysfs/rdma OUT=$TMP/fx NO_BUILD=1 $R > "$TMP/fx.out" 2>&1
rc=$?
last=$(grep '^1\.\.' "$TMP/fx.out")
[ $rc = 0 ] && [ "$(grep -c '^1\.\.' "$TMP/fx.out")" = 1 ] &&
    [[ "$last" == "1..0 # SKIP every port skipped by the verbs transport: "* ]]
ok $? "fixture devices: one plan, a skip, exit $rc: $(echo "${last#1..0 # SKIP }" | cut -c1-90)"
grep -q '^mlx5_2 port 1: 1: DOWN (3: Disabled), 25 Gb/sec (1X EDR), Ethernet$' "$TMP/fx.out" &&
    grep -q '^mlx5_0 port 1: 4: ACTIVE (5: LinkUp), 400 Gb/sec (4X NDR), InfiniBand, interfaces ib0 $' "$TMP/fx.out"
ok $? "it lists every port with its state, rate and link layer"
[ "$(grep '^SKIP: ' "$TMP/fx.out" | tr '\n' ' ')" = "SKIP: mlx4_0:2 loopback SKIP: mlx5_0:1 loopback SKIP: mlx5_1:1 loopback SKIP: mlx5_3:1 loopback " ]
ok $? "the 4 ACTIVE ports were run, none of the 2 DOWN ones: $(grep '^SKIP: ' "$TMP/fx.out" | tr '\n' ' ')"
grep -q '^# 1\.\.0 # SKIP rank 0 on .*, NIC mlx5_0:1: verbs: NIC mlx5_0:1 is mlx5_0 port 1 in sysfs, but libibverbs does not list it' "$TMP/fx.out" &&
    grep -q 'NIC mlx5_3:1: no usable GID for NIC mlx5_3:1: mlx5_3 port 1 is RoCE (Ethernet) and has no RoCE v2 GID with an IPv4 address' "$TMP/fx.out"
ok $? "rdma_pair's skips say why per port: libibverbs cannot open mlx5_0; mlx5_3 has no RoCE v2 IPv4 GID"

FC_SYSFS_ROOT=tests/fixtures/sysfs/rdma timeout -k 10 120 mpirun -np 2 -x FC_SYSFS_ROOT \
    "$BUILD/tests/verbs_setup" > "$TMP/setup.tap" 2> "$TMP/setup.err"
rc=$?
if grep -q '^1\.\.0 # SKIP' "$TMP/setup.tap"; then
    for i in $(seq 11); do
        FC_TESTS_RUN=$((FC_TESTS_RUN + 1))
        echo "ok $FC_TESTS_RUN # SKIP verbs_setup: $(sed -n 's/^1\.\.0 # SKIP //p' "$TMP/setup.tap")"
    done
else
    n=0
    while IFS= read -r line; do
        case "$line" in
            "ok "*) ok 0 "verbs_setup: ${line#ok * - }"; n=$((n + 1));;
            "not ok "*) ok 1 "verbs_setup: ${line#not ok * - }"; n=$((n + 1));;
        esac
    done < "$TMP/setup.tap"
    for i in $(seq $((n + 1)) 11); do ok 1 "verbs_setup: point $i missing (exit $rc)"; done
    [ $n -gt 11 ] && diag "verbs_setup printed $n points, 11 planned"
fi
[ $rc = 0 ] && [ "$(grep -c '^ok' "$TMP/setup.tap")" = 11 ] || grep -q '^1\.\.0 # SKIP' "$TMP/setup.tap"
ok $? "verbs_setup: 11 points, exit $rc$( [ $rc = 0 ] || echo ": $(tail -3 "$TMP/setup.err" | tr '\n' ' ')")"
done_testing
