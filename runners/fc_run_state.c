/*
 * fc_run_state.c - the run's state between stages: the inventory, which
 * hosts are healthy, quarantine, and the runner's own records and files
 * (run.json, the frozen copies of the profile and inventory the stages
 * read, results.jsonl claimed for one run).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fc_cmds.h"
#include "fc_input.h"
#include "fc_report.h"
#include "fc_report_text.h"
#include "fc_results.h"
#include "fc_run.h"
#include "fc_version.h"

/* A rack map of the whole cluster with a host list of part of it: say what
 * this run leaves out, so a typo in the host list does not go unseen; a
 * rack of the run with hosts left out is tested in part, and cannot PASS
 * (the plan records its left-out hosts: fc_inventory_json). */
void fc_print_left_out(const fc_inventory_t *inv)
{
    if (inv->map_hosts_left_out > 0)
        printf("# %d host(s) of the rack map %s are not in the host list %s and are "
               "left out of this run (%d rack(s) entirely)\n", inv->map_hosts_left_out,
               inv->racks_path, inv->hosts_path, inv->racks_left_out);
    for (int r = 0; r < inv->nracks; ++r) {
        int left = 0, in_run = 0;

        for (int k = 0; k < inv->nleft_out; ++k)
            left += inv->left_out_rack[k] == r;
        for (int h = 0; h < inv->nhosts; ++h)
            in_run += inv->host_rack[h] == r;
        if (left > 0)
            printf("# rack %s: %d of the %d hosts the rack map gives it are not in this "
                   "run: it is tested in part and cannot PASS\n", inv->racks[r], left,
                   left + in_run);
    }
}

/* --racks-from: the rack map made from the topology, written into the
 * output directory (racks; racks.resume for a resume, checked against
 * the run's then removed) and read from there as --racks would be. */
static fc_status_t fc_run_racks_from(fc_run_state_t *st)
{
    char path[PATH_MAX + 32], *text = NULL;
    FILE *f;

    snprintf(path, sizeof(path), "%s/racks%s", st->o.out_dir, st->o.resume ? ".resume" : "");
    if (strlen(path) >= sizeof(st->o.racks)) {
        fprintf(stderr, "fabcert: --out: path too long\n");
        return FC_ERR_INVALID;
    }
    FC_CHECK(fc_racks_from(st->o.racks_from, st->o.rack_label, stdout, &text));
    if ((f = fopen(path, "w")) == NULL || (fputs(text, f) < 0) + (fclose(f) != 0) > 0) {
        fc_write_failed(path, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        free(text);
        return FC_ERR_INVALID;
    }
    free(text);
    snprintf(st->o.racks, sizeof(st->o.racks), "%s", path);
    return FC_OK;
}

/* A hostfile's slots=N is the ranks per node when --ppn is not given:
 * every host that says it must say the same. 0, or 2 (said). */
static fc_status_t fc_run_ppn_from_slots(fc_run_state_t *st)
{
    const fc_inventory_t *inv = &st->inv;
    int first = -1;

    if (st->o.ppn_arg || st->o.local || inv->host_slots == NULL)
        return FC_OK;
    for (int h = 0; h < inv->nhosts; ++h) {
        if (inv->host_slots[h] == 0)
            continue;
        if (first < 0) {
            first = h;
        } else if (inv->host_slots[h] != inv->host_slots[first]) {
            fprintf(stderr, "fabcert: %s:%d: host %s has slots=%d, host %s (line %d) "
                    "slots=%d: fabcert runs as many ranks on every host: give --ppn\n",
                    inv->hosts_path, inv->host_line[h], inv->hosts[h], inv->host_slots[h],
                    inv->hosts[first], inv->host_line[first], inv->host_slots[first]);
            return FC_ERR_INVALID;
        }
    }
    if (first >= 0) {
        st->o.ppn = inv->host_slots[first];
        printf("fabcert: %d rank(s) per node: the host list's slots=%d (--ppn overrides)\n",
               st->o.ppn, st->o.ppn);
    }
    return FC_OK;
}

/* Inventory from the files, or this machine alone. */

fc_status_t fc_run_load_inventory(fc_run_state_t *st)
{
    if (st->o.racks_from[0])
        FC_CHECK(fc_run_racks_from(st));
    /* no host list: inside a Slurm allocation its nodes (also with a rack
     * map made from the topology, which is the whole cluster's), else
     * this host when there is no rack map either */
    if (st->o.hosts[0] == '\0' && (st->o.racks[0] == '\0' ||
                                   (st->o.racks_from[0] && getenv("SLURM_JOB_NODELIST")))) {
        const char *slurm = getenv("SLURM_JOB_NODELIST");
        char host[256] = "";
        char path[PATH_MAX];
        FILE *f;

        if (slurm && slurm[0]) {
            printf("fabcert: hosts from SLURM_JOB_NODELIST: %s\n", slurm);
        } else {
            gethostname(host, sizeof(host) - 1);
            st->o.local = 1;
        }
        /* a resume checks the list against the run's before it replaces
         * the frozen copy (fc_run_resume_check) */
        if (snprintf(path, sizeof(path), "%s/hosts%s", st->o.out_dir,
                     st->o.resume ? ".resume" : "") >= (int)sizeof(path)) {
            fprintf(stderr, "fabcert: --out: path too long\n");
            return FC_ERR_INVALID;
        }
        /* the whole list, however long: a cut one would be another cluster */
        if ((f = fopen(path, "w")) == NULL ||
            (st->o.local ? fprintf(f, "%s\n", host)
                         : fprintf(f, "# from SLURM_JOB_NODELIST\n%s\n", slurm)) < 0 ||
            fclose(f) != 0) {
            fc_write_failed(path, errno);
            fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
            return FC_ERR_INVALID;
        }
        snprintf(st->o.hosts, sizeof(st->o.hosts), "%s", path);
    }
    return fc_run_parse_inventory(st);
}

fc_status_t fc_run_parse_inventory(fc_run_state_t *st)
{
    char *hosts_text = NULL, *racks_text = NULL;
    fc_status_t s;

    if ((st->o.hosts[0] && fc_input_read_plain(st->o.hosts, "host list", FC_INPUT_INVENTORY_MAX,
                                               &hosts_text) != FC_OK) ||
        (st->o.racks[0] && fc_input_read_plain(st->o.racks, "rack map", FC_INPUT_INVENTORY_MAX,
                                               &racks_text) != FC_OK))
        s = FC_ERR_INVALID;
    else
        s = fc_inventory_parse(hosts_text, st->o.hosts, racks_text, st->o.racks,
                               &st->inv);
    free(st->hosts_text);
    free(st->racks_text);
    st->hosts_text = hosts_text;
    st->racks_text = racks_text;
    if (s == FC_OK)
        s = fc_run_ppn_from_slots(st);
    return s;
}

int fc_run_load_profile(fc_run_state_t *st)
{
    if (fc_profile_load(st->o.profile, &st->profile) != FC_OK)
        return 2;
    for (int s = 0; s < FC_STAGE_COUNT && st->o.soak_duration > 0; ++s) {
        fc_stage_profile_t *sp = &st->profile.stages[s];

        if (!(fc_stage_desc((fc_stage_id_t)s)->sections & FC_SECT_SOAK))
            continue;
        if (sp->present &&
            fc_soak_duration_check(st->o.profile, sp, st->o.soak_duration) != FC_OK)
            return 2;
        fc_soak_set_duration(sp, st->o.soak_duration);
    }
    return 0;
}

int fc_cluster_mode(const fc_run_opts_t *o)
{
    return !o->local;
}

void fc_append(fc_run_state_t *st, json_t *rec)
{
    fc_results_t r;

    if (fc_results_open(st->o.out_dir, &r) != FC_OK) {
        json_decref(rec);
        return;
    }
    fc_results_append(&r, rec);
    fc_results_close(&r);
}

json_t *fc_run_record(const fc_run_state_t *st, const char *type,
                             const char *stage)
{
    char now[32];

    fc_results_time(now, sizeof(now));
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type, "run_id",
                     st->o.run_id, "stage", stage ? stage : "", "time", now,
                     "source", "runner");
}

json_t *fc_inventory_json(const fc_inventory_t *inv)
{
    json_t *hosts = json_array(), *racks = json_array(), *left_out = json_array();

    for (int h = 0; h < inv->nhosts; ++h)
        json_array_append_new(hosts, json_pack("{s:s, s:s}", "host", inv->hosts[h],
                                               "rack", inv->racks[inv->host_rack[h]]));
    for (int r = 0; r < inv->nracks; ++r)
        json_array_append_new(racks, json_string(inv->racks[r]));
    /* the rack map's hosts of these racks that the run leaves out: such a
     * rack is certified on part of its hosts, so the verdict needs them */
    for (int k = 0; k < inv->nleft_out; ++k)
        json_array_append_new(left_out, json_pack("{s:s, s:s}", "host", inv->left_out[k],
                                                  "rack", inv->racks[inv->left_out_rack[k]]));
    return json_pack("{s:o, s:o, s:o, s:s, s:s}", "hosts", hosts, "racks", racks,
                     "left_out", left_out, "hosts_file", inv->hosts_path, "racks_file",
                     inv->racks_path);
}

int fc_write_run_json(const fc_run_state_t *st, json_t *stages)
{
    char path[PATH_MAX + 16], now[32], host[256] = "";
    json_t *meta;
    int rc;

    fc_results_time(now, sizeof(now));
    gethostname(host, sizeof(host) - 1);
    meta = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:o, s:i, s:i}",
                     "run_id", st->o.run_id, "version", FC_VERSION, "started", now,
                     "launch_host", host, "profile", st->profile.name,
                     "profile_path", st->profile.path, "profile_sha256",
                     st->profile.sha256, "launcher", st->o.mpirun, "stages", stages,
                     "inventory", fc_inventory_json(&st->inv), "ppn",
                     fc_cluster_mode(&st->o) ? st->o.ppn : st->o.np, "cluster",
                     fc_cluster_mode(&st->o));
    snprintf(path, sizeof(path), "%s/run.json", st->o.out_dir);
    rc = json_dump_file(meta, path, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(meta);
    if (rc != 0) {
        fc_write_failed(path, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
    }
    return rc;
}

long fc_file_size(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 ? (long)sb.st_size : 0;
}

void fc_quarantine(fc_run_state_t *st, const char *stage, const char *host,
                          const char *part, const char *reason)
{
    int h = fc_inventory_find_host(&st->inv, host);
    json_t *rec;

    if (h < 0 || st->quarantined[h])
        return;
    st->quarantined[h] = 1;
    st->healthy[h] = 0;
    rec = fc_run_record(st, "quarantine", stage);
    json_object_set_new(rec, "host", json_string(host));
    json_object_set_new(rec, "rack", json_string(st->inv.racks[st->inv.host_rack[h]]));
    json_object_set_new(rec, "part", json_string(part));
    json_object_set_new(rec, "reason", json_string(reason));
    fc_append(st, rec);
    fc_print_line(stdout, "  quarantined %s (rack %s): %s: %s", host,
                  st->inv.racks[st->inv.host_rack[h]], part, reason);
}

void fc_quarantine_nic(fc_run_state_t *st, const char *stage, json_t *imp, const char *reason)
{
    const char *host = fc_json_str(imp, "host"), *nic = fc_json_str(imp, "nic");
    int h = fc_inventory_find_host(&st->inv, host);
    long long rail = json_integer_value(json_object_get(imp, "rail"));
    /* once per NIC and rail in this runner (its pairs and its node record
     * all implicate it) */
    static json_t *done;
    char key[256];
    json_t *rec;

    if (h < 0)
        return;
    snprintf(key, sizeof(key), "%s %s %lld", host, nic, rail);
    if (done == NULL)
        done = json_object();
    if (json_object_get(done, key) != NULL)
        return;
    json_object_set_new(done, key, json_true());
    /* the host stays in service: its other NICs, and every stage that
     * does not drive this NIC's rail, run on it (docs/DECISIONS.md) */
    rec = fc_run_record(st, "quarantine", stage);
    json_object_set_new(rec, "host", json_string(host));
    json_object_set_new(rec, "rack", json_string(st->inv.racks[st->inv.host_rack[h]]));
    json_object_set_new(rec, "part", json_string("nic"));
    json_object_set_new(rec, "nic", json_string(nic));
    json_object_set_new(rec, "rail", json_integer(rail));
    json_object_set_new(rec, "scope", json_string("rail"));
    json_object_set_new(rec, "reason", json_string(reason));
    fc_append(st, rec);
    fc_print_line(stdout, "  quarantined NIC %s of %s for rail %lld (rack %s): %s", nic, host,
                  rail, st->inv.racks[st->inv.host_rack[h]], reason);
}

/* A background_hosts list: every host in the inventory, else exit 2. */
static int fc_check_hostlist(const fc_run_state_t *st, const char *list)
{
    char (*names)[FC_INV_NAME_MAX] = NULL, err[256];
    int n = 0, bad = 0;

    if (fc_hostlist_expand(list, &names, &n, err, sizeof(err)) != FC_OK) {
        fprintf(stderr, "fabcert: %s: background_hosts: %s\n", st->o.profile, err);
        return 2;
    }
    for (int i = 0; i < n && !bad; ++i)
        if (fc_inventory_find_host(&st->inv, names[i]) < 0) {
            fprintf(stderr, "fabcert: %s: background_hosts names %s, which is not in the "
                    "inventory\n", st->o.profile, names[i]);
            bad = 2;
        }
    free(names);
    return bad;
}

/* The contention stage's background_hosts must be hosts of the inventory:
 * a typo would otherwise leave the stage without background, found out
 * only after the earlier stages have run. */
int fc_check_background_hosts(const fc_run_state_t *st)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        const fc_stage_profile_t *sp = &st->profile.stages[s];
        int rc;

        if (!(fc_stage_desc((fc_stage_id_t)s)->sections & FC_SECT_CONTENTION) ||
            !sp->present || !st->o.stages[s] || !sp->cont.background_hosts[0])
            continue;
        if ((rc = fc_check_hostlist(st, sp->cont.background_hosts)) != 0)
            return rc;
    }
    return 0;
}

/* Copy one input file into the output directory; path_p is repointed. */
static fc_status_t fc_run_freeze_file(const char *out_dir, const char *name,
                                      const char *read, char *path_p, size_t len)
{
    char copy[PATH_MAX + 64], *text = NULL;
    FILE *f;
    fc_status_t st = FC_OK;

    if ((size_t)snprintf(copy, sizeof(copy), "%s/%s", out_dir, name) >= len) {
        fprintf(stderr, "fabcert: --out: path too long\n");
        return FC_ERR_INVALID;
    }
    if (strcmp(copy, path_p) == 0)
        return FC_OK;           /* written there by the runner itself */
    if (read == NULL && fc_input_read(path_p, name, strcmp(name, "profile.yaml") == 0
                                      ? FC_INPUT_PROFILE_MAX : FC_INPUT_INVENTORY_MAX,
                                      &text, NULL) != FC_OK)
        return FC_ERR_INVALID;
    if ((f = fopen(copy, "w")) == NULL || fputs(read ? read : text, f) < 0 || fclose(f) != 0) {
        fc_write_failed(copy, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", copy, strerror(errno));
        st = FC_ERR_INVALID;
    } else {
        memcpy(path_p, copy, strlen(copy) + 1);     /* fits: checked above */
    }
    free(text);
    return st;
}

/* The stage programs read the profile and the inventory again, each on its
 * own host: they read copies in the output directory, frozen when the run
 * began, so an edit during the run cannot change what a stage judges. The
 * copy's hash must be the profile's; the host list and rack map are written
 * as the inventory read them (a --hosts <(scontrol show hostnames) pipe
 * gives its text once). */
fc_status_t fc_run_freeze_inputs(fc_run_state_t *st)
{
    fc_run_opts_t *o = &st->o;
    fc_profile_t frozen;

    snprintf(o->profile_source, sizeof(o->profile_source), "%s", o->profile);
    snprintf(o->hosts_source, sizeof(o->hosts_source), "%s", o->hosts);
    snprintf(o->racks_source, sizeof(o->racks_source), "%s",
             o->racks_from[0] ? o->racks_from : o->racks);
    FC_CHECK(fc_run_freeze_file(o->out_dir, "profile.yaml", NULL, o->profile,
                                sizeof(o->profile)));
    /* the host list and rack map as the inventory read them */
    if (o->hosts[0])
        FC_CHECK(fc_run_freeze_file(o->out_dir, "hosts", st->hosts_text, o->hosts,
                                    sizeof(o->hosts)));
    if (o->racks[0])
        FC_CHECK(fc_run_freeze_file(o->out_dir, "racks", st->racks_text, o->racks,
                                    sizeof(o->racks)));
    if (fc_profile_load(o->profile, &frozen) != FC_OK)
        return FC_ERR_INVALID;
    if (strcmp(frozen.sha256, st->profile.sha256) != 0) {
        fprintf(stderr, "fabcert: %s changed while it was being read (sha256 %.12s, then "
                "%.12s); run again once it is stable\n", o->profile_source,
                st->profile.sha256, frozen.sha256);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

/* Rack names become certificate file names. */
int fc_run_check_rack_names(const fc_inventory_t *inv)
{
    for (int r = 0; r < inv->nracks; ++r)
        if (!fc_rack_name_ok(inv->racks[r])) {
            fprintf(stderr, "fabcert: %s: rack '%s' cannot name a certificate file: use "
                    "letters, digits, '-', '_' and '.' (not first)\n",
                    inv->racks_path[0] ? inv->racks_path : "inventory", inv->racks[r]);
            return 2;
        }
    return 0;
}

/* Create results.jsonl, failing if it exists: one run per directory, even
 * when two runners are started with the same --out at once. */
int fc_run_claim_results(fc_run_state_t *st)
{
    int fd = open(st->results_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

    if (fd < 0) {
        fprintf(stderr, "fabcert: %s: %s%s\n", st->results_path, strerror(errno),
                errno == EEXIST ? ": the directory already holds a run; give another --out"
                                : "");
        return 2;
    }
    return fc_run_lock_results(st, fd);
}

int fc_run_write_check(const fc_run_state_t *st, const char *full)
{
    char what[PATH_MAX + 256];
    struct statvfs fs;

    if (!fc_write_failure(what, sizeof(what))) {
        /* root may write into the blocks kept for it, others not; a
         * filesystem of no blocks at all (some FUSE ones) says nothing */
        if (full == NULL || statvfs(st->o.out_dir, &fs) != 0 || fs.f_blocks == 0 ||
            (geteuid() == 0 ? fs.f_bfree : fs.f_bavail) > 0)
            return 0;
        snprintf(what, sizeof(what), "%.*s%s%s: %s (its filesystem has no free block left)",
                 PATH_MAX, st->o.out_dir, full[0] ? "/" : "", full, strerror(ENOSPC));
    }
    fflush(stdout);
    fc_print_line(stderr, "fabcert: disk full / write failed: %s", what);
    fc_print_line(stderr, "fabcert: the run stopped: not everything it writes under %s could "
                  "be written, so take no verdict from it (exit 1); free space there and run "
                  "again", st->o.out_dir);
    return 1;
}

/* Hold results.jsonl for this runner alone: a second runner (a resume
 * while the run still goes on, two resumes at once) is refused. The
 * descriptor stays open, close-on-exec, for the runner's life. */
int fc_run_lock_results(fc_run_state_t *st, int fd)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "fabcert: %s: %s\n", st->results_path, errno == EWOULDBLOCK
                ? "another fabcert run is writing this directory; wait for it to end"
                : strerror(errno));
        close(fd);
        return 2;
    }
    st->lock_fd = fd;
    return 0;
}
