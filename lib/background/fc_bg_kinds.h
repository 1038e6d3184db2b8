/*
 * fc_bg_kinds.h - the kinds of background traffic of the contention
 * stage, listed once. Each line of FC_BG_KIND_LIST is one kind:
 *
 *   X(ID, name, keys, block, duty)
 *
 * ID makes its enum value FC_BG_ID (lib/profile/fc_profile.h), name its profile
 * section under contention: and its ops table fc_bg_NAME_ops, which its
 * own file lib/background/fc_bg_NAME.c defines (the engine's table and the externs,
 * lib/background/fc_background.c and fc_bg_kind.h, are made from this list); keys is
 * the key table of its section (fc_bg_rate_keys when it reads the pace
 * alone; a kind with keys of its own gives them a table, and fields in
 * fc_bg_profile_t, in lib/profile/fc_profile_contention.c and fc_profile.h); block
 * and duty are its defaults. The order is the engine's: kinds start in it
 * and drain in reverse (the tenant's agreement on its last step first).
 * No MPI here: the MPI-free programs read profiles too.
 */
#ifndef FC_BG_KINDS_H
#define FC_BG_KINDS_H

#define FC_BG_KIND_LIST(X)                                                                    \
    /* large-block writes + fsync and reads, to storage_dir */                               \
    X(STORAGE_FILE, storage_file, fc_bg_storage_file_keys, 1 << 20, 1.0)                      \
    /* many-to-few incast in bursts: checkpoints */                                           \
    X(STORAGE_NET, storage_net, fc_bg_storage_net_keys, 1 << 20, 0.7)                         \
    /* another job: all-to-all or a permutation */                                            \
    X(TENANT, tenant, fc_bg_tenant_keys, 256 << 10, 1.0)

#endif
