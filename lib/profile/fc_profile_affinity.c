/*
 * fc_profile_affinity.c - preflight's expect.gpu_nic_affinity: how near
 * on the PCI tree each GPU's nearest NIC must be, and optionally which
 * NIC each GPU must have:
 *
 *   expect:
 *     gpu_nic_affinity:
 *       max_distance: PXB         # PIX, PXB, PHB, NODE or SYS (default PXB)
 *       nics: "mlx5_*"            # the NICs that count, by any of their names
 *       nic_link: true            # each NIC's PCIe link at what it can do
 *       map: {"0000:19:00.0": mlx5_0, "7": mlx5_7}
 *
 * A map key is a GPU's PCI address (0000:bb:dd.f) or its index in PCI
 * order (as nvidia-smi numbers them); a value is a NIC's RDMA or network
 * device name. Stating the section enables the check (lib/pci/fc_pci_topo.c
 * judges it); a bad distance, key or name is refused at its line.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_profile_sections.h"

static const fc_yaml_choice_t fc_dist_choices[] = {
    { "PIX", FC_PCI_PIX }, { "PXB", FC_PCI_PXB }, { "PHB", FC_PCI_PHB },
    { "NODE", FC_PCI_NODE }, { "SYS", FC_PCI_SYS }, { NULL, 0 },
};

/* 0000:bb:dd.f, lowercase hex as sysfs writes it */
static int fc_is_bdf(const char *s)
{
    static const char shape[] = "xxxx:xx:xx.x";

    if (strlen(s) != sizeof(shape) - 1)
        return 0;
    for (size_t i = 0; shape[i]; ++i)
        if (shape[i] == 'x' ? !(isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f'))
                            : s[i] != shape[i])
            return 0;
    return 1;
}

static int fc_is_index(const char *s)
{
    size_t n = strspn(s, "0123456789");

    return n > 0 && n < 4 && s[n] == '\0';
}

static int fc_is_devname(const char *s, size_t len)
{
    if (len == 0 || len >= 64)
        return 0;
    for (size_t i = 0; i < len; ++i)
        if (!isalnum((unsigned char)s[i]) && !strchr("_.:-", s[i]))
            return 0;
    return 1;
}

static fc_status_t fc_affinity_map_read(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                        struct fy_node *k, struct fy_node *v, void *base)
{
    fc_affinity_profile_t *a = base;
    void *iter = NULL;
    struct fy_node *mk, *mv;
    char gpu[64];

    a->nmap = 0;
    for (;;) {
        fc_affinity_map_entry_t *m;
        const char *nic;
        size_t len = 0;
        int col;

        FC_CHECK(fc_yaml_map_next(ctx, v, k, "'map'", &iter, gpu, sizeof(gpu), &mk, &mv));
        if (mk == NULL)
            break;
        if (!fc_is_bdf(gpu) && !fc_is_index(gpu))
            return fc_yaml_error(ctx, mk, mk, "'map': '%s' is neither a GPU's PCI address "
                                 "(0000:bb:dd.f, lowercase hex) nor a GPU index", gpu);
        if (fc_is_index(gpu))   /* "03" is GPU 3, as "3" is */
            snprintf(gpu, sizeof(gpu), "%d", atoi(gpu));
        nic = mv && fy_node_is_scalar(mv) ? fy_node_get_scalar(mv, &len) : NULL;
        if (nic == NULL || !fc_is_devname(nic, len))
            return fc_yaml_error(ctx, mv, mk, "'map': GPU %s must map to a NIC's device "
                                 "name (letters, digits, _ . : -), such as mlx5_0", gpu);
        for (int i = 0; i < a->nmap; ++i)
            if (strcmp(a->map[i].gpu, gpu) == 0)
                return fc_yaml_error(ctx, mk, mk, "'map': GPU %s is mapped twice (line %d)",
                                     gpu, a->map[i].line);
        if (a->nmap == FC_AFFINITY_MAX_MAP)
            return fc_yaml_error(ctx, mk, mk, "'map': more than %d GPUs",
                                 FC_AFFINITY_MAX_MAP);
        m = &a->map[a->nmap++];
        snprintf(m->gpu, sizeof(m->gpu), "%s", gpu);
        snprintf(m->nic, sizeof(m->nic), "%.*s", (int)len, nic);
        fc_yaml_mark(mk, &m->line, &col);
    }
    return FC_OK;
}

static const fc_yaml_field_t fc_affinity_keys[] = {
    FC_KEY_CHOICE("max_distance", fc_affinity_profile_t, max_distance, fc_dist_choices),
    FC_KEY_STRING("nics", fc_affinity_profile_t, nics, "a glob such as mlx5_* or ib*"),
    FC_KEY_BOOL("nic_link", fc_affinity_profile_t, nic_link),
    { .key = "map", .type = FC_YAML_FUNC, .offset = 0, .parse = fc_affinity_map_read },
    FC_KEY_END
};

/* The section was stated (even empty: `gpu_nic_affinity: {}`): the check runs. */
static fc_status_t fc_affinity_done(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                    struct fy_node *map, void *base)
{
    ((fc_affinity_profile_t *)base)->enabled = 1;
    return FC_OK;
}

const fc_yaml_section_t fc_affinity_section = {
    .where = "'gpu_nic_affinity'", .keys = fc_affinity_keys, .done = fc_affinity_done,
};

void fc_affinity_defaults(fc_affinity_profile_t *a)
{
    memset(a, 0, sizeof(*a));
    a->max_distance = FC_PCI_PXB;
    snprintf(a->nics, sizeof(a->nics), "*");
    a->nic_link = 1;
}
