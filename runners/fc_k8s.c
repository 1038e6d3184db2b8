/*
 * fc_k8s.c - `fabcert k8s`: the whole acceptance on a Kubernetes cluster,
 * as a Kubeflow MPI Operator job (kubeflow.org/v2beta1 MPIJob). It writes
 * two objects, in YAML (or JSON):
 *
 *   a ConfigMap NAME-fabcert: the profile (--profile, checked here) and
 *     the rack map of the cluster's nodes (--racks-from: node labels,
 *     Slurm, ibnetdiscover; lib/inventory/fc_topology.h), as files under
 *     /etc/fabcert in the launcher;
 *   the MPIJob: N workers (one per node: a required pod anti-affinity on
 *     kubernetes.io/hostname), each with the GPUs and RDMA resources asked
 *     for, IPC_LOCK where RDMA memory is registered, /dev/shm in memory for
 *     NCCL, its node's name in FC_K8S_NODE (the downward API), sshd as the
 *     operator expects; slotsPerWorker ranks per node; a launcher that runs
 *     fabcert-k8s-launch (runners/), which maps each worker to its node and
 *     rack and then runs `fabcert run --hosts /etc/mpi/hostfile` (the
 *     operator's hostfile, "HOST slots=N") with the options after `--`.
 *
 * Everything given is checked here (names as Kubernetes takes them, the
 * profile, the rack map, the run options through `run`'s own parser), so
 * a manifest that comes out is one the API server and the operator's
 * validation accept (tests/e2e/k8s.t validates it against the CRD's
 * schema). Bad input: one message, exit 2.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_cmds.h"
#include "fc_input.h"
#include "fc_profile.h"
#include "fc_run.h"
#include "fc_version.h"

#define FC_K8S_MAX_ITEMS 32

typedef struct fc_k8s_opts {
    const char *name, *namespace, *image, *profile, *racks_from, *rack_label, *pvc;
    const char *gpu_resource, *prefix, *out, *format;
    int workers, slots, gpus;
    const char *rdma[FC_K8S_MAX_ITEMS];         /* NAME=COUNT */
    int nrdma;
    const char *selector[FC_K8S_MAX_ITEMS];     /* KEY=VALUE */
    int nselector;
    const char *annotation[FC_K8S_MAX_ITEMS];   /* KEY=VALUE */
    int nannotation;
    char **run_args;                            /* after `--` */
    int nrun_args;
} fc_k8s_opts_t;

static void fc_k8s_usage(FILE *out)
{
    fprintf(out,
"usage: fabcert k8s --image IMAGE --workers N [options] [-- RUN-OPTIONS...]\n"
"  a Kubeflow MPI Operator job (MPIJob, kubeflow.org/v2beta1) that runs\n"
"  `fabcert run` on N nodes of a Kubernetes cluster; kubectl apply -f it\n"
"  --name NAME            the job (default fabcert)\n"
"  --namespace NS         its namespace (default default)\n"
"  --image IMAGE          the fabcert image (the Dockerfile at the top of\n"
"                         the source tree builds it)\n"
"  --workers N            nodes to certify: one worker pod per node\n"
"  --slots N              ranks per node (slotsPerWorker; default: --gpus,\n"
"                         else 2)\n"
"  --gpus N               GPUs per worker (the GPU resource, limits)\n"
"  --gpu-resource NAME    the GPU's resource name (default nvidia.com/gpu)\n"
"  --rdma NAME=COUNT      an RDMA resource per worker (repeat), e.g.\n"
"                         rdma/rdma_shared_device_a=1, nvidia.com/hostdev=8;\n"
"                         adds IPC_LOCK (memory registration)\n"
"  --profile FILE         the threshold profile (checked here, carried in\n"
"                         the ConfigMap; default: the image's local.yaml)\n"
"  --racks-from SPEC      the nodes' rack map: k8s[:FILE] (node labels,\n"
"                         kubectl get nodes -o json), slurm[:FILE] or\n"
"                         ibnetdiscover[:FILE] (hosts named as the nodes)\n"
"  --rack-label KEY       k8s: the label that names the rack\n"
"  --node-selector K=V    workers only on nodes with this label (repeat)\n"
"  --pod-annotation K=V   on the worker pods (repeat; e.g. a Multus\n"
"                         network: k8s.v1.cni.cncf.io/networks=...)\n"
"  --pvc CLAIM            keep the output on this claim (default: an\n"
"                         emptyDir: the launcher's log only outlives it)\n"
"  --prefix DIR           where the image has fabcert (default /opt/fabcert)\n"
"  --format yaml|json     (default yaml); --out FILE (default stdout)\n"
"  -- RUN-OPTIONS         more `fabcert run` options (e.g. --backend nccl\n"
"                         --stages node,rack); not --hosts, --racks, --out,\n"
"                         --profile, --ppn, --np, --launcher, --resume\n");
}

/* A DNS-1123 label: lower-case letters, digits, '-', not at either end;
 * at most max characters (63). */
static int fc_k8s_dns_label(const char *s, size_t max)
{
    size_t n = strlen(s);

    if (n == 0 || n > max || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (; *s; ++s)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-'))
            return 0;
    return 1;
}

/* A DNS-1123 subdomain: labels separated by '.', 253 at most. */
static int fc_k8s_dns_subdomain(const char *s)
{
    char buf[256], *save = NULL;

    if (strlen(s) > 253 || !s[0] || s[0] == '.' || s[strlen(s) - 1] == '.' || strstr(s, ".."))
        return 0;
    snprintf(buf, sizeof(buf), "%s", s);
    for (char *l = strtok_r(buf, ".", &save); l; l = strtok_r(NULL, ".", &save))
        if (!fc_k8s_dns_label(l, 63))
            return 0;
    return 1;
}

/* A qualified name (label keys, resource names): [prefix/]name, the name
 * 63 at most of letters, digits, '-', '_', '.', alphanumeric at both ends. */
static int fc_k8s_qualified(const char *s)
{
    const char *slash = strchr(s, '/'), *name = slash ? slash + 1 : s;
    size_t n = strlen(name);
    char prefix[256];

    if (slash) {
        if ((size_t)(slash - s) >= sizeof(prefix))
            return 0;
        snprintf(prefix, sizeof(prefix), "%.*s", (int)(slash - s), s);
        if (!fc_k8s_dns_subdomain(prefix) || strchr(name, '/'))
            return 0;
    }
    if (n == 0 || n > 63 || !isalnum((unsigned char)name[0]) ||
        !isalnum((unsigned char)name[n - 1]))
        return 0;
    for (const char *c = name; *c; ++c)
        if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.'))
            return 0;
    return 1;
}

/* A label value: empty, or 63 at most, alphanumeric at both ends. */
static int fc_k8s_label_value(const char *s)
{
    return s[0] == '\0' || fc_k8s_qualified(s);
}

static int fc_k8s_count(const char *what, const char *text, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);

    if (*text == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "fabcert: k8s: %s '%s': a count from %d to %d\n", what, text, lo, hi);
        return 2;
    }
    *out = (int)v;
    return 0;
}

/* KEY=VALUE into list; key checked as a qualified name, the value by
 * check (NULL: any). 0 or 2. */
static int fc_k8s_pair(const char *opt, const char *arg, int (*check)(const char *),
                       const char **list, int *n)
{
    const char *eq = strchr(arg, '=');
    char key[320];

    if (eq == NULL || (size_t)(eq - arg) >= sizeof(key) || *n == FC_K8S_MAX_ITEMS) {
        fprintf(stderr, "fabcert: k8s: %s '%s': expected KEY=VALUE (at most %d)\n", opt, arg,
                FC_K8S_MAX_ITEMS);
        return 2;
    }
    snprintf(key, sizeof(key), "%.*s", (int)(eq - arg), arg);
    if (!fc_k8s_qualified(key) || (check && !check(eq + 1))) {
        fprintf(stderr, "fabcert: k8s: %s '%s': the key must be a Kubernetes qualified name "
                "([prefix/]name: letters, digits, '-', '_', '.'; 63 at most)%s\n", opt, arg,
                check ? " and the value a label value or a count" : "");
        return 2;
    }
    list[(*n)++] = arg;
    return 0;
}

static int fc_k8s_positive(const char *s)
{
    return s[0] && strspn(s, "0123456789") == strlen(s) && atol(s) > 0 && strlen(s) < 7;
}

/* The `fabcert run` options after `--`: none the job sets itself, and
 * every one accepted by run's own parser. 0 or 2. */
static int fc_k8s_check_run_args(const fc_k8s_opts_t *o)
{
    char **argv = fc_xcalloc((size_t)o->nrun_args + 2, sizeof(char *), "the run options");
    const char *owned = NULL;
    fc_run_opts_t ro;
    int rc;

    argv[0] = "run";
    for (int i = 0; i < o->nrun_args; ++i)
        argv[i + 1] = o->run_args[i];
    rc = fc_parse_run(o->nrun_args + 1, argv, &ro);
    free(argv);
    if (rc != 0) {
        fprintf(stderr, "fabcert: k8s: the options after -- are `fabcert run`'s (above)\n");
        return 2;
    }
    /* read as run reads them (an abbreviation, --hos, is --hosts) */
    owned = ro.hosts[0] ? "--hosts" : ro.racks[0] ? "--racks" : ro.racks_from[0]
          ? "--racks-from" : ro.rack_label ? "--rack-label" : ro.out_dir[0] ? "--out or --resume"
          : ro.profile_given ? "--profile" : ro.ppn_arg ? "--ppn" : ro.np_arg ? "--np"
          : ro.srun ? "--launcher" : (ro.mpirun_from && !strcmp(ro.mpirun_from, "--mpirun"))
          ? "--mpirun" : ro.rerun_dir[0] ? "--rerun-failed" : NULL;
    if (owned) {
        fprintf(stderr, "fabcert: k8s: -- %s: the job sets it (the workers are the operator's "
                "hostfile, the racks and profile the ConfigMap's, the ranks per node "
                "--slots)\n", owned);
        return 2;
    }
    return 0;
}

static int fc_k8s_parse(int argc, char **argv, fc_k8s_opts_t *o)
{
    enum { O_NAME = 1, O_NS, O_IMAGE, O_WORKERS, O_SLOTS, O_GPUS, O_GPU_RES, O_RDMA, O_PROFILE,
           O_RACKS_FROM, O_RACK_LABEL, O_SELECTOR, O_ANNOTATION, O_PVC, O_PREFIX, O_FORMAT,
           O_OUT, O_HELP };
    static const struct option longopts[] = {
        { "name", required_argument, NULL, O_NAME },
        { "namespace", required_argument, NULL, O_NS },
        { "image", required_argument, NULL, O_IMAGE },
        { "workers", required_argument, NULL, O_WORKERS },
        { "slots", required_argument, NULL, O_SLOTS },
        { "gpus", required_argument, NULL, O_GPUS },
        { "gpu-resource", required_argument, NULL, O_GPU_RES },
        { "rdma", required_argument, NULL, O_RDMA },
        { "profile", required_argument, NULL, O_PROFILE },
        { "racks-from", required_argument, NULL, O_RACKS_FROM },
        { "rack-label", required_argument, NULL, O_RACK_LABEL },
        { "node-selector", required_argument, NULL, O_SELECTOR },
        { "pod-annotation", required_argument, NULL, O_ANNOTATION },
        { "pvc", required_argument, NULL, O_PVC },
        { "prefix", required_argument, NULL, O_PREFIX },
        { "format", required_argument, NULL, O_FORMAT },
        { "out", required_argument, NULL, O_OUT },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    int c, end = argc, rc = 0;

    memset(o, 0, sizeof(*o));
    o->name = "fabcert";
    o->namespace = "default";
    o->gpu_resource = "nvidia.com/gpu";
    o->prefix = "/opt/fabcert";
    o->format = "yaml";
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--") == 0) {
            end = i;
            o->run_args = argv + i + 1;
            o->nrun_args = argc - i - 1;
            break;
        }
    optind = 1;
    while (rc == 0 && (c = getopt_long(end, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_NAME: o->name = optarg; break;
        case O_NS: o->namespace = optarg; break;
        case O_IMAGE: o->image = optarg; break;
        case O_WORKERS: rc = fc_k8s_count("--workers", optarg, 1, 100000, &o->workers); break;
        case O_SLOTS: rc = fc_k8s_count("--slots", optarg, 1, 1024, &o->slots); break;
        case O_GPUS: rc = fc_k8s_count("--gpus", optarg, 0, 1024, &o->gpus); break;
        case O_GPU_RES: o->gpu_resource = optarg; break;
        case O_RDMA: rc = fc_k8s_pair("--rdma", optarg, fc_k8s_positive, o->rdma, &o->nrdma); break;
        case O_PROFILE: o->profile = optarg; break;
        case O_RACKS_FROM: o->racks_from = optarg; break;
        case O_RACK_LABEL: o->rack_label = optarg; break;
        case O_SELECTOR:
            rc = fc_k8s_pair("--node-selector", optarg, fc_k8s_label_value, o->selector,
                             &o->nselector);
            break;
        case O_ANNOTATION:
            rc = fc_k8s_pair("--pod-annotation", optarg, NULL, o->annotation, &o->nannotation);
            break;
        case O_PVC: o->pvc = optarg; break;
        case O_PREFIX: o->prefix = optarg; break;
        case O_FORMAT: o->format = optarg; break;
        case O_OUT: o->out = optarg; break;
        case O_HELP: fc_k8s_usage(stdout); return 1;
        default: fc_k8s_usage(stderr); return 2;
        }
    }
    if (rc != 0)
        return rc;
    if (optind < end) {
        fprintf(stderr, "fabcert: k8s: unexpected argument '%s' (options of `fabcert run` "
                "go after --)\n", argv[optind]);
        return 2;
    }
    if (o->image == NULL || o->workers == 0) {
        fprintf(stderr, "fabcert: k8s: give --image IMAGE and --workers N (fabcert k8s "
                "--help)\n");
        return 2;
    }
    if (o->slots == 0)
        o->slots = o->gpus > 0 ? o->gpus : 2;
    return 0;
}

/* What Kubernetes and the MPI operator would refuse, refused here. 0 or 2. */
static int fc_k8s_check(const fc_k8s_opts_t *o)
{
    char worker[128];

    snprintf(worker, sizeof(worker), "%s-worker-%d", o->name, o->workers - 1);
    if (!fc_k8s_dns_label(o->name, 63) || !fc_k8s_dns_label(worker, 63)) {
        fprintf(stderr, "fabcert: k8s: --name %s: the job's pods are named %s: a DNS label "
                "(lower-case letters, digits and '-', 63 at most)\n", o->name, worker);
        return 2;
    }
    if (!fc_k8s_dns_label(o->namespace, 63)) {
        fprintf(stderr, "fabcert: k8s: --namespace %s is not a DNS label\n", o->namespace);
        return 2;
    }
    if (o->image[0] == '\0' || strpbrk(o->image, " \t\n\"'")) {
        fprintf(stderr, "fabcert: k8s: --image '%s' is not an image reference\n", o->image);
        return 2;
    }
    if (!fc_k8s_qualified(o->gpu_resource)) {
        fprintf(stderr, "fabcert: k8s: --gpu-resource %s is not a resource name\n",
                o->gpu_resource);
        return 2;
    }
    if (o->pvc && !fc_k8s_dns_subdomain(o->pvc)) {
        fprintf(stderr, "fabcert: k8s: --pvc %s is not a claim name\n", o->pvc);
        return 2;
    }
    if (o->prefix[0] != '/' || strpbrk(o->prefix, " \t\n")) {
        fprintf(stderr, "fabcert: k8s: --prefix %s: an absolute path\n", o->prefix);
        return 2;
    }
    if (strcmp(o->format, "yaml") != 0 && strcmp(o->format, "json") != 0) {
        fprintf(stderr, "fabcert: k8s: --format %s: yaml or json\n", o->format);
        return 2;
    }
    if (o->rack_label && (o->racks_from == NULL || strncmp(o->racks_from, "k8s", 3) != 0)) {
        fprintf(stderr, "fabcert: k8s: --rack-label goes with --racks-from k8s[:FILE]\n");
        return 2;
    }
    return fc_k8s_check_run_args(o);
}

static json_t *fc_k8s_labels(const fc_k8s_opts_t *o, const char *component)
{
    json_t *l = json_pack("{s:s, s:s}", "app.kubernetes.io/name", "fabcert",
                          "app.kubernetes.io/instance", o->name);

    if (component)
        json_object_set_new(l, "app.kubernetes.io/component", json_string(component));
    return l;
}

/* KEY=VALUE pairs as an object; counts as numbers when numeric. */
static json_t *fc_k8s_pairs(const char *const *list, int n, int numeric)
{
    json_t *obj = json_object();

    for (int k = 0; k < n; ++k) {
        const char *eq = strchr(list[k], '=');
        char key[320];

        snprintf(key, sizeof(key), "%.*s", (int)(eq - list[k]), list[k]);
        json_object_set_new(obj, key, numeric ? json_integer(atol(eq + 1)) : json_string(eq + 1));
    }
    return obj;
}

/* The ConfigMap: the profile and the nodes' rack map, or NULL (neither). */
static json_t *fc_k8s_configmap(const fc_k8s_opts_t *o, const char *profile, const char *racks)
{
    json_t *data = json_object();
    char name[300];

    if (profile == NULL && racks == NULL) {
        json_decref(data);
        return NULL;
    }
    if (profile)
        json_object_set_new(data, "profile.yaml", json_string(profile));
    if (racks)
        json_object_set_new(data, "node-racks", json_string(racks));
    snprintf(name, sizeof(name), "%s-fabcert", o->name);
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:o}", "apiVersion", "v1", "kind",
                     "ConfigMap", "metadata", "name", name, "namespace", o->namespace,
                     "labels", fc_k8s_labels(o, NULL), "data", data);
}

static json_t *fc_k8s_worker(const fc_k8s_opts_t *o)
{
    json_t *limits = fc_k8s_pairs(o->rdma, o->nrdma, 1), *container, *spec, *meta;

    if (o->gpus > 0)
        json_object_set_new(limits, o->gpu_resource, json_integer(o->gpus));
    container = json_pack(
        "{s:s, s:s, s:s, s:[s, s], s:[{s:s, s:{s:{s:s}}}], s:{s:o, s:O}, s:[{s:s, s:s}]}",
        "name", "worker", "image", o->image, "imagePullPolicy", "IfNotPresent",
        "command", "/usr/sbin/sshd", "-De",
        "env", "name", "FC_K8S_NODE", "valueFrom", "fieldRef", "fieldPath", "spec.nodeName",
        "resources", "limits", limits, "requests", limits,
        "volumeMounts", "name", "dshm", "mountPath", "/dev/shm");
    if (o->nrdma > 0)       /* verbs registers memory: the memlock limit */
        json_object_set_new(container, "securityContext",
                            json_pack("{s:{s:[s]}}", "capabilities", "add", "IPC_LOCK"));
    spec = json_pack(
        "{s:{s:{s:[{s:{s:o}, s:s}]}}, s:[o], s:[{s:s, s:{s:s}}]}",
        "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
        "labelSelector", "matchLabels", fc_k8s_labels(o, "worker"),
        "topologyKey", "kubernetes.io/hostname",
        "containers", container,
        "volumes", "name", "dshm", "emptyDir", "medium", "Memory");
    if (o->nselector > 0)
        json_object_set_new(spec, "nodeSelector", fc_k8s_pairs(o->selector, o->nselector, 0));
    meta = json_pack("{s:o}", "labels", fc_k8s_labels(o, "worker"));
    if (o->nannotation > 0)
        json_object_set_new(meta, "annotations",
                            fc_k8s_pairs(o->annotation, o->nannotation, 0));
    return json_pack("{s:i, s:s, s:{s:o, s:o}}", "replicas", o->workers, "restartPolicy",
                     "Never", "template", "metadata", meta, "spec", spec);
}

static json_t *fc_k8s_launcher(const fc_k8s_opts_t *o, int has_config)
{
    json_t *args = json_pack("[s, s, s, s, s, s]", "--hostfile", "/etc/mpi/hostfile",
                             "--config", "/etc/fabcert", "--out", "/var/lib/fabcert");
    json_t *mounts = json_pack("[{s:s, s:s}]", "name", "fabcert-out", "mountPath",
                               "/var/lib/fabcert");
    json_t *volumes = json_array(), *container;
    char cmd[PATH_MAX + 64], config[300];

    json_array_append_new(args, json_string("--"));
    for (int i = 0; i < o->nrun_args; ++i)
        json_array_append_new(args, json_string(o->run_args[i]));
    json_array_append_new(volumes, o->pvc
        ? json_pack("{s:s, s:{s:s}}", "name", "fabcert-out", "persistentVolumeClaim",
                    "claimName", o->pvc)
        : json_pack("{s:s, s:{}}", "name", "fabcert-out", "emptyDir"));
    if (has_config) {
        snprintf(config, sizeof(config), "%s-fabcert", o->name);
        json_array_append_new(mounts, json_pack("{s:s, s:s, s:b}", "name", "fabcert-config",
                                                "mountPath", "/etc/fabcert", "readOnly", 1));
        json_array_append_new(volumes, json_pack("{s:s, s:{s:s}}", "name", "fabcert-config",
                                                 "configMap", "name", config));
    }
    snprintf(cmd, sizeof(cmd), "%s/bin/fabcert-k8s-launch", o->prefix);
    container = json_pack("{s:s, s:s, s:s, s:[s], s:o, s:o}", "name", "launcher", "image",
                          o->image, "imagePullPolicy", "IfNotPresent", "command", cmd,
                          "args", args, "volumeMounts", mounts);
    return json_pack("{s:i, s:s, s:{s:{s:o}, s:{s:[o], s:o}}}", "replicas", 1,
                     "restartPolicy", "Never", "template", "metadata", "labels",
                     fc_k8s_labels(o, "launcher"), "spec", "containers", container,
                     "volumes", volumes);
}

static json_t *fc_k8s_mpijob(const fc_k8s_opts_t *o, int has_config)
{
    /* a certification that failed is a verdict, not a fault to retry */
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:{s:i, s:{s:s, s:i}, s:s, s:s, "
                     "s:{s:o, s:o}}}",
                     "apiVersion", "kubeflow.org/v2beta1", "kind", "MPIJob",
                     "metadata", "name", o->name, "namespace", o->namespace,
                     "labels", fc_k8s_labels(o, NULL),
                     "spec", "slotsPerWorker", o->slots,
                     "runPolicy", "cleanPodPolicy", "Running", "backoffLimit", 0,
                     "sshAuthMountPath", "/root/.ssh", "mpiImplementation", "OpenMPI",
                     "mpiReplicaSpecs", "Launcher", fc_k8s_launcher(o, has_config),
                     "Worker", fc_k8s_worker(o));
}

int fc_cmd_k8s(int argc, char **argv)
{
    fc_k8s_opts_t o;
    char *profile = NULL, *racks = NULL;
    json_t *cm = NULL, *job = NULL;
    int rc, yaml;
    FILE *f = stdout;

    if ((rc = fc_k8s_parse(argc, argv, &o)) != 0)
        return rc == 1 ? 0 : rc;
    if ((rc = fc_k8s_check(&o)) != 0)
        return rc;
    if (o.profile) {
        fc_profile_t p;

        if (fc_profile_load(o.profile, &p) != FC_OK || fc_input_read(o.profile, "profile", FC_INPUT_PROFILE_MAX, &profile, NULL))
            return 2;
    } else {
        fprintf(stderr, "fabcert: k8s: no --profile: the image's default profile "
                "(thresholds/local.yaml) will judge the run\n");
    }
    if (o.racks_from && fc_racks_from(o.racks_from, o.rack_label, stderr, &racks) != FC_OK) {
        free(profile);
        return 2;
    }
    if (!o.racks_from)
        fprintf(stderr, "fabcert: k8s: no --racks-from: the workers will be one rack, "
                "'default'\n");
    yaml = strcmp(o.format, "yaml") == 0;
    cm = fc_k8s_configmap(&o, profile, racks);
    job = fc_k8s_mpijob(&o, cm != NULL);
    if (o.out && (f = fopen(o.out, "w")) == NULL) {
        fprintf(stderr, "fabcert: k8s: cannot write %s: %s\n", o.out, strerror(errno));
        rc = 2;
        goto out;
    }
    if (yaml)
        fprintf(f, "# fabcert %s: certify %d node(s) with `fabcert run` under the Kubeflow "
                "MPI Operator\n# (kubeflow.org/v2beta1); kubectl apply -f this file, then "
                "kubectl logs -f job/%s-launcher\n", FC_VERSION, o.workers, o.name);
    if (yaml) {
        if ((cm && (fc_json_write_yaml(f, cm) != 0 || fputs("---\n", f) < 0)) ||
            fc_json_write_yaml(f, job) != 0)
            rc = 2;
    } else {    /* one document: a List, as kubectl reads it */
        json_t *list = json_pack("{s:s, s:s, s:[]}", "apiVersion", "v1", "kind", "List",
                                 "items");
        char *text;

        if (cm)
            json_array_append(json_object_get(list, "items"), cm);
        json_array_append(json_object_get(list, "items"), job);
        text = json_dumps(list, JSON_INDENT(2));
        if (text == NULL || fprintf(f, "%s\n", text) < 0)
            rc = 2;
        free(text);
        json_decref(list);
    }
    if (o.out && fclose(f) != 0)
        rc = 2;
    if (rc != 0)
        fprintf(stderr, "fabcert: k8s: cannot write the manifest%s%s\n", o.out ? " to " : "",
                o.out ? o.out : "");
out:
    json_decref(cm);
    json_decref(job);
    free(profile);
    free(racks);
    return rc;
}
