#!/usr/bin/python3
"""validate_mpijob.py - check a manifest of `fabcert k8s` as Kubernetes and
the Kubeflow MPI Operator would, without a cluster.

    validate_mpijob.py CRD.yaml MANIFEST     (YAML documents, or a JSON List)

- each MPIJob against the CRD's openAPIV3Schema for v2beta1
  (tests/fixtures/k8s/mpijob-crd-v2beta1.yaml), with python3-jsonschema,
  strictly: a property the schema does not have is refused, as
  `kubectl apply --validate=strict` refuses it; int32/int64 in range;
- the MPI Operator's own rules (pkg/apis/kubeflow/validation/validation.go
  of kubeflow/mpi-operator): a Launcher of 1 replica, Workers of 1 or more,
  restartPolicy Never or OnFailure, containers, slotsPerWorker,
  runPolicy.cleanPodPolicy None/Running/All, sshAuthMountPath,
  mpiImplementation OpenMPI or Intel, NAME-worker-(N-1) a DNS label;
- what the API server checks of the objects and pods fabcert writes: names
  (DNS labels and subdomains), label keys and values, container and volume
  names, each volume mount naming a volume, env names, extended resources
  with requests equal to limits, a ConfigMap the launcher mounts present
  and of string data.
Prints one line per finding; exit 0 when there is none, 1 otherwise, 2 on
bad usage.
"""
import copy
import json
import re
import sys

import jsonschema
import yaml

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
QUALIFIED = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                       r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CONFIG_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")

errors = []


def err(where, msg):
    errors.append("%s: %s" % (where, msg))


def dns_subdomain(s):
    return isinstance(s, str) and 0 < len(s) <= 253 and all(
        DNS_LABEL.match(p) and len(p) <= 63 for p in s.split("."))


def strict(schema):
    """The schema with additionalProperties: false wherever properties are
    listed and nothing else is allowed: unknown fields are errors."""
    if isinstance(schema, dict):
        schema = {k: strict(v) for k, v in schema.items()}
        if ("properties" in schema and "additionalProperties" not in schema
                and not schema.get("x-kubernetes-preserve-unknown-fields")):
            schema["additionalProperties"] = False
    elif isinstance(schema, list):
        schema = [strict(v) for v in schema]
    return schema


def formats():
    checker = jsonschema.FormatChecker()

    @checker.checks("int32")
    def int32(v):
        return not isinstance(v, int) or -2**31 <= v < 2**31

    @checker.checks("int64")
    def int64(v):
        return not isinstance(v, int) or -2**63 <= v < 2**63
    return checker


def check_meta(where, meta, namespaced=True):
    if not isinstance(meta, dict):
        return err(where, "metadata is not an object")
    if not dns_subdomain(meta.get("name")):
        err(where, "metadata.name %r is not a DNS subdomain" % meta.get("name"))
    if namespaced and "namespace" in meta and not DNS_LABEL.match(str(meta["namespace"])):
        err(where, "metadata.namespace %r is not a DNS label" % meta["namespace"])
    for k, v in (meta.get("labels") or {}).items():
        if not QUALIFIED.match(k) or not isinstance(v, str) or len(v) > 63 or not LABEL_VALUE.match(v):
            err(where, "label %r: %r is not a valid label" % (k, v))
    for k, v in (meta.get("annotations") or {}).items():
        if not QUALIFIED.match(k) or not isinstance(v, str):
            err(where, "annotation %r is not a qualified name with a string value" % k)


def check_pod(where, spec, configmaps):
    vols = [v.get("name") for v in spec.get("volumes", [])]
    for v in vols:
        if not isinstance(v, str) or not DNS_LABEL.match(v) or len(v) > 63:
            err(where, "volume name %r is not a DNS label" % v)
    if len(set(vols)) != len(vols):
        err(where, "volume names repeat: %s" % vols)
    for v in spec.get("volumes", []):
        cm = v.get("configMap", {}).get("name")
        if cm is not None and cm not in configmaps:
            err(where, "volume %s mounts ConfigMap %s, which the manifest lacks" % (v["name"], cm))
    names = [c.get("name") for c in spec.get("containers", [])]
    if len(set(names)) != len(names):
        err(where, "container names repeat: %s" % names)
    for c in spec.get("containers", []):
        cw = "%s container %s" % (where, c.get("name"))
        if not isinstance(c.get("name"), str) or not DNS_LABEL.match(c["name"]):
            err(cw, "the name is not a DNS label")
        if not c.get("image"):
            err(cw, "no image")
        for m in c.get("volumeMounts", []):
            if m.get("name") not in vols:
                err(cw, "mounts volume %r, which the pod lacks" % m.get("name"))
        for e in c.get("env", []):
            if not C_IDENTIFIER.match(str(e.get("name"))):
                err(cw, "env name %r is not a C identifier" % e.get("name"))
        res = c.get("resources", {})
        for r, q in res.get("limits", {}).items():
            if not QUALIFIED.match(r):
                err(cw, "resource name %r is not a qualified name" % r)
            extended = "/" in r and not r.startswith("kubernetes.io/")
            if extended and str(res.get("requests", {}).get(r, q)) != str(q):
                err(cw, "extended resource %s: requests must equal limits" % r)
            if extended and not re.match(r"^[0-9]+$", str(q)):
                err(cw, "extended resource %s: %r is not a whole number" % (r, q))
    for k, v in (spec.get("nodeSelector") or {}).items():
        if not QUALIFIED.match(k) or not LABEL_VALUE.match(str(v)):
            err(where, "nodeSelector %r=%r is not a label" % (k, v))


def check_operator(where, job):
    """kubeflow/mpi-operator pkg/apis/kubeflow/validation/validation.go"""
    spec = job.get("spec", {})
    specs = spec.get("mpiReplicaSpecs") or {}
    workers = specs.get("Worker", {}).get("replicas") or 1
    pod = "%s-worker-%d" % (job.get("metadata", {}).get("name", ""), workers - 1)
    if not DNS_LABEL.match(pod) or len(pod) > 63:
        err(where, "the pods would be named %s: not a DNS label" % pod)
    if "slotsPerWorker" not in spec or spec["slotsPerWorker"] < 0:
        err(where, "spec.slotsPerWorker: required, not negative")
    if (spec.get("runPolicy") or {}).get("cleanPodPolicy") not in ("None", "Running", "All"):
        err(where, "spec.runPolicy.cleanPodPolicy: None, Running or All")
    if not spec.get("sshAuthMountPath"):
        err(where, "spec.sshAuthMountPath: required")
    if spec.get("mpiImplementation") not in ("OpenMPI", "Intel"):
        err(where, "spec.mpiImplementation: OpenMPI or Intel")
    if "Launcher" not in specs:
        err(where, "spec.mpiReplicaSpecs.Launcher: required")
    for role, rs in specs.items():
        rw = "%s %s" % (where, role)
        if role not in ("Launcher", "Worker"):
            err(rw, "not a replica type of the MPI Operator (Launcher, Worker)")
        if rs.get("replicas") is None:
            err(rw, "replicas: required")
        elif role == "Launcher" and rs["replicas"] != 1:
            err(rw, "replicas must be 1")
        elif role == "Worker" and rs["replicas"] < 1:
            err(rw, "replicas must be 1 or more")
        if rs.get("restartPolicy") not in ("Never", "OnFailure"):
            err(rw, "restartPolicy: Never or OnFailure")
        if not rs.get("template", {}).get("spec", {}).get("containers"):
            err(rw, "template.spec.containers: at least one")


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    crd = yaml.safe_load(open(sys.argv[1]))
    version = [v for v in crd["spec"]["versions"] if v["name"] == "v2beta1"][0]
    schema = strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
    text = open(sys.argv[2]).read()
    try:
        docs = [json.loads(text)]
    except ValueError:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    if len(docs) == 1 and docs[0].get("kind") == "List":
        docs = docs[0].get("items", [])
    configmaps = {d["metadata"]["name"] for d in docs
                  if d.get("kind") == "ConfigMap" and isinstance(d.get("metadata"), dict)}
    validator = jsonschema.Draft7Validator(schema, format_checker=formats())
    jobs = 0
    for i, doc in enumerate(docs):
        kind = doc.get("kind")
        where = "%s %s" % (kind, (doc.get("metadata") or {}).get("name"))
        if kind == "ConfigMap":
            if doc.get("apiVersion") != "v1":
                err(where, "apiVersion must be v1")
            check_meta(where, doc.get("metadata"))
            for k, v in (doc.get("data") or {}).items():
                if not CONFIG_KEY.match(k) or not isinstance(v, str):
                    err(where, "data %r: a key of [-._a-zA-Z0-9] with a string value" % k)
        elif kind == "MPIJob":
            jobs += 1
            if doc.get("apiVersion") != "kubeflow.org/v2beta1":
                err(where, "apiVersion %r is not kubeflow.org/v2beta1" % doc.get("apiVersion"))
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
                err(where, "%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(root)",
                                        e.message))
            check_meta(where, doc.get("metadata"))
            check_operator(where, doc)
            for role, rs in ((doc.get("spec") or {}).get("mpiReplicaSpecs") or {}).items():
                tmpl = rs.get("template") or {}
                check_meta("%s %s template" % (where, role),
                           dict(tmpl.get("metadata") or {}, name="x"), False)
                check_pod("%s %s pod" % (where, role), tmpl.get("spec") or {}, configmaps)
        else:
            err("document %d" % (i + 1), "unexpected kind %r" % kind)
    if jobs != 1:
        err(sys.argv[2], "%d MPIJob(s), not 1" % jobs)
    for e in errors:
        print("invalid: " + e)
    if not errors:
        print("valid: %d document(s), %d MPIJob against %s" % (len(docs), jobs, sys.argv[1]))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
