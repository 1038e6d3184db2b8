#!/bin/bash
# k8s.t - `fabcert k8s` and its launcher (runners/fc_k8s.c,
# runners/fabcert-k8s-launch; docs/kubernetes.md). Shows that:
#   - the manifest (a ConfigMap and a Kubeflow MPIJob, kubeflow.org/v2beta1),
#     in YAML and as a JSON List, is valid against the MPIJob CRD's schema
#     (tests/fixtures/k8s, taken from kubeflow/mpi-operator) and the
#     operator's own rules (tests/k8s/validate_mpijob.py, python3-jsonschema),
#     and says what was asked: the image, slotsPerWorker, the GPU and RDMA
#     resources with IPC_LOCK, one worker per node, the node's name from the
#     downward API, the profile and the nodes' racks from labels carried
#     byte for byte, a string that YAML 1.1 would read as a boolean kept a
#     string;
#   - the validator can fail: five planted faults are each refused;
#   - bad options exit 2 with one message, writing no manifest;
#   - the image's recipe (Dockerfile): every library the installed programs
#     link comes from a package its run-time stage installs, or one those
#     depend on;
#   - the launcher's flow on the virtual cluster, from an installed copy (as
#     in the image): the operator's hostfile (fully qualified pod names,
#     "HOST slots=2"; OMPI_MCA_orte_keep_fqdn_hostnames=true, as the
#     operator sets), the nodes' racks from labels: fabcert run PASSes with
#     2 ranks per node, a certificate per labelled rack, the workers named
#     as the hostfile names them, and the rack map saying each one's node;
#   - a worker on a node the rack map lacks stops the launcher (exit 2)
#     naming the worker and the node, before anything runs.
# lane: long (a minute or more: started first)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
FIX=tests/fixtures
CRD=$FIX/k8s/mpijob-crd-v2beta1.yaml
plan 15
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
have_py=1
$PY -c 'import jsonschema, yaml' 2> /dev/null || have_py=0
validate() { $PY tests/k8s/validate_mpijob.py "$CRD" "$1"; }
skip_py() { for _ in $(seq 1 "$1"); do
    ok 0 "# SKIP python3-jsonschema or python3-yaml is not installed (make deps installs them)"; done; }

# 1. the manifest
$FC k8s --name burnin --namespace gpu-burnin --image registry.example.com/fabcert:1.2 --workers 4 \
    --gpus 8 --rdma rdma/rdma_shared_device_a=1 --profile thresholds/vcluster.yaml \
    --racks-from k8s:$FIX/topology/k8s-nodes.json --node-selector nvidia.com/gpu.present=true \
    --node-selector feature.example.com/ib=yes --pod-annotation k8s.v1.cni.cncf.io/networks=ib-sriov \
    -- --backend nccl --stages node,rack > "$TMP/job.yaml" 2> "$TMP/job.err"
rc=$?
$FC k8s --image registry.example.com/fabcert:1.2 --workers 2 --format json > "$TMP/job.json" 2> /dev/null
rc2=$?
if [ $have_py = 1 ]; then
    validate "$TMP/job.yaml" > "$TMP/v1.out" 2>&1
    ok $(( rc != 0 || $? != 0 )) "the YAML manifest (a ConfigMap and an MPIJob) is valid against the CRD's schema and the operator's rules ($rc)"
    diag "$(cat "$TMP/v1.out")"
    validate "$TMP/job.json" > "$TMP/v2.out" 2>&1
    ok $(( rc2 != 0 || $? != 0 )) "a minimal one as a JSON List (no ConfigMap) is valid too ($rc2)"
    [ $? -eq 0 ] || why "$(cat "$TMP/v2.out")"
    $PY - "$TMP/job.yaml" thresholds/vcluster.yaml > "$TMP/fields.out" 2>&1 <<'EOF'
import sys, yaml
cm, job = list(yaml.safe_load_all(open(sys.argv[1])))
spec = job["spec"]
w = spec["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
c = w["containers"][0]
l = spec["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
checks = {
  "image": c["image"] == l["image"] == "registry.example.com/fabcert:1.2",
  "slots": spec["slotsPerWorker"] == 8 and spec["mpiReplicaSpecs"]["Worker"]["replicas"] == 4,
  "gpus and rdma": c["resources"]["limits"] == {"nvidia.com/gpu": 8, "rdma/rdma_shared_device_a": 1}
                   == c["resources"]["requests"],
  "IPC_LOCK": c["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"],
  "one per node": w["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["topologyKey"] == "kubernetes.io/hostname",
  "node name": c["env"][0] == {"name": "FC_K8S_NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
  "profile": cm["data"]["profile.yaml"] == open(sys.argv[2]).read(),
  "racks": "gpu-a1 leaf-a" in cm["data"]["node-racks"] and "gpu-b2 leaf-b" in cm["data"]["node-racks"],
  "strings": w["nodeSelector"] == {"nvidia.com/gpu.present": "true", "feature.example.com/ib": "yes"},
  "run options": l["args"][-5:] == ["--", "--backend", "nccl", "--stages", "node,rack"],
}
bad = [k for k, v in checks.items() if not v]
print("wrong: " + ", ".join(bad) if bad else "all as asked")
sys.exit(1 if bad else 0)
EOF
    ok $? "it says what was asked: image, slots, GPU and RDMA resources, IPC_LOCK, one worker per node, FC_K8S_NODE, the profile and racks byte for byte, 'true' and 'yes' kept strings, the run options"
    [ $? -eq 0 ] || why "$(cat "$TMP/fields.out")"
    # 2. the validator refuses planted faults
    n=0
    for fault in 's/slotsPerWorker: 8/slotPerWorker: 8/' 's/slotsPerWorker: 8/slotsPerWorker: "8"/' \
                 '0,/replicas: 1/s//replicas: 2/' 's/mountPath: "\/dev\/shm"/mountPath: "\/dev\/shm"\n              subPathy: "x"/' \
                 's/restartPolicy: "Never"/restartPolicy: "Always"/'; do
        sed -e "$fault" "$TMP/job.yaml" > "$TMP/fault.yaml"
        cmp -s "$TMP/fault.yaml" "$TMP/job.yaml" && continue    # the fault did not apply
        validate "$TMP/fault.yaml" > "$TMP/fault.out" 2>&1 || n=$((n + 1))
    done
    is "$n" 5 "the validator refuses each of 5 planted faults (unknown field, a string for int32, 2 launchers, unknown mount field, restartPolicy Always)"
else
    skip_py 4
fi

# 3. bad options
bad() {     # bad DESCRIPTION EXPECTED-MESSAGE ARGS...
    local d=$1 want=$2; shift 2
    $FC k8s "$@" > "$TMP/bad.out" 2> "$TMP/bad.err"
    local rc=$?
    [ $rc -eq 2 ] && [ ! -s "$TMP/bad.out" ] && grep -qF -- "$want" "$TMP/bad.err"
    ok $? "$d: exit 2 ($rc), no manifest, '$want'"
    [ $? -eq 0 ] || why "$(cat "$TMP/bad.err")"
}
bad "no image" "give --image IMAGE and --workers N" --workers 2
bad "a name pods cannot have" "--name Burn_in: the job's pods are named Burn_in-worker-1" \
    --image x --workers 2 --name Burn_in
bad "an RDMA count of 0" "--rdma 'rdma/hca=0'" --image x --workers 2 --rdma rdma/hca=0
bad "a run option the job sets, abbreviated" "-- --hosts: the job sets it" --image x --workers 2 \
    -- --hos h
printf 'name: x\n' > "$TMP/profile.yaml"
bad "a bad profile" "profile.yaml:1:1: the profile has no 'stages'" --image x --workers 2 \
    --profile "$TMP/profile.yaml" --format json

# 4. the image's recipe: the run-time packages cover what the programs link
make -s --no-print-directory install PREFIX="$TMP/prefix" BUILD="$BUILD" > "$TMP/install.out" 2>&1
rc=$?
pkgs=$(sed -n '/^FROM \${BASE}$/,$p' Dockerfile | sed -n 's/^ *\([a-z0-9][a-z0-9.+-]*\) *\\$/\1/p' | sort -u)
have=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $pkgs 2> /dev/null | grep -v '^ ' | tr -d '<>' | sort -u)
for f in "$TMP"/prefix/bin/* "$TMP"/prefix/libexec/fabcert/*; do
    file -b "$f" | grep -q ELF && ldd "$f" 2> /dev/null | awk '/=> \// { print $3 }'
done | grep -v '^/usr/local/cuda' | sort -u > "$TMP/libs"        # the CUDA base's are its own
# each library's package, asked of dpkg once: by its path, its real path,
# or its real path without /usr (a merged /usr lists /lib/...)
while read -r lib; do
    real=$(readlink -f "$lib")
    echo "$lib $real ${real#/usr}"
done < "$TMP/libs" > "$TMP/lib-paths"
dpkg -S $(tr ' ' '\n' < "$TMP/lib-paths" | sort -u) 2> /dev/null | sed 's/:[a-z0-9]*: / /' > "$TMP/owners"
missing=$(awk -v have="$have" 'BEGIN { n = split(have, h, "\n"); for (i = 1; i <= n; ++i) ok[h[i]] = 1 }
    FILENAME == ARGV[1] { owner[$2] = $1; next }
    { p = ""; for (i = 1; i <= 3 && p == ""; ++i) if ($i in owner) p = owner[$i]
      if (!(p in ok)) printf " %s(%s)", $1, p == "" ? "no package" : p }' "$TMP/owners" "$TMP/lib-paths")
[ $rc -eq 0 ] && [ -n "$pkgs" ] && [ -x "$TMP/prefix/bin/fabcert-k8s-launch" ] && [ -z "$missing" ]
ok $? "the Dockerfile's run-time packages ($(echo $pkgs | wc -w)) bring every library the installed programs link; make install puts the launcher in bin"
[ -z "$missing" ] || why "missing:$missing"

# 5. the launcher on the virtual cluster, the operator's hostfile
vcluster_up fck
X=$TMP/prefix
mkdir -p "$TMP/etc-mpi" "$TMP/config"
for i in 01 02 03 04; do echo "${NAME}$i.fabcert-worker.default.svc slots=2"; done > "$TMP/etc-mpi/hostfile"
{   echo '{"apiVersion": "v1", "kind": "List", "items": ['
    echo " {\"kind\": \"Node\", \"metadata\": {\"name\": \"${NAME}01\", \"labels\": {\"network.topology.nvidia.com/leaf\": \"leaf-x\"}}},"
    echo " {\"kind\": \"Node\", \"metadata\": {\"name\": \"${NAME}02\", \"labels\": {\"network.topology.nvidia.com/leaf\": \"leaf-x\"}}},"
    echo " {\"kind\": \"Node\", \"metadata\": {\"name\": \"${NAME}03\", \"labels\": {\"network.topology.nvidia.com/leaf\": \"leaf-y\"}}},"
    echo " {\"kind\": \"Node\", \"metadata\": {\"name\": \"${NAME}04\", \"labels\": {\"network.topology.nvidia.com/leaf\": \"leaf-y\"}}}]}"
} > "$TMP/nodes.json"
$FC topology k8s "$TMP/nodes.json" --out "$TMP/config/node-racks" 2> /dev/null
perl -ne '$in = $1 if /^  (\w+):$/; $in = "" if /^\S/; print if $in eq "" || $in =~ /^(node|rack)$/' \
    thresholds/vcluster.yaml > "$TMP/config/profile.yaml"
launch() {  # launch OUT: the launcher inside the first node, as the operator starts it
    $VC --name $NAME exec ${NAME}01 env OMPI_MCA_orte_keep_fqdn_hostnames=true \
        "$X/bin/fabcert-k8s-launch" --hostfile "$TMP/etc-mpi/hostfile" --config "$TMP/config" \
        --out "$TMP/$1" --wait 0 -- --sizes 64KiB --iters 3 --collectives all_reduce \
        --dtypes float32 --ops sum > "$TMP/$1.out" 2>&1
}
t0=$(date +%s)
launch out
rc=$?
run=$(ls -d "$TMP"/out/fabcert-out/*/ 2> /dev/null | head -1)
grep -q '^rack leaf-x: PASS' "$TMP/out.out" && grep -q '^rack leaf-y: PASS' "$TMP/out.out" &&
    grep -q '^verdict: PASS' "$TMP/out.out"
ok $(( rc != 0 || $? != 0 )) "the launcher's run on the operator's hostfile PASSes, racks from the node labels ($rc, $(( $(date +%s) - t0 )) s)"
[ $rc -eq 0 ] || why "$(tail -8 "$TMP/out.out")"
[ -n "$run" ] && [ -s "$run/certificates/leaf-x.json" ] && [ -s "$run/certificates/leaf-y.json" ]
ok $? "a certificate per labelled rack"
n=$([ -n "$run" ] && jsonl "$run/results.jsonl" 'my ($s) = grep { $_->{type} eq "stage_start" } @r;
    $s->{ranks} . " ranks on " . join(",", sort keys %{{ map { $_ => 1 } @{$s->{rank_hosts}} }})')
is "$n" "8 ranks on $(printf "${NAME}%s.fabcert-worker.default.svc," 01 02 03 04 | sed 's/,$//')" \
    "2 ranks per node from slots=2, each worker named as the hostfile names it (its pod calls itself ${NAME}01)"
grep -q "^${NAME}03.fabcert-worker.default.svc leaf-y  # node ${NAME}03$" "$run/racks" 2> /dev/null
ok $? "the run's rack map puts each worker in its node's rack and names the node"

# 6. a worker on a node the labels snapshot lacks
grep -v "^${NAME}04 " "$TMP/config/node-racks" > "$TMP/nr" && mv "$TMP/nr" "$TMP/config/node-racks"
launch lacks
rc=$?
[ $rc -eq 2 ] && grep -q "worker ${NAME}04.fabcert-worker.default.svc runs on node ${NAME}04, which the rack map $TMP/config/node-racks lacks" "$TMP/lacks.out" &&
    [ ! -e "$TMP/lacks/fabcert-out" ]
ok $? "a worker on a node the rack map lacks: exit 2 ($rc), worker and node named, nothing run"
done_testing
