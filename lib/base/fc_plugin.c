/*
 * fc_plugin.c - see fc_plugin.h. The plugin is looked for beside the
 * program: build/suites/STAGE and build/fabcert both find
 * build/libfabcert_gpu.so. dlopen's own message (a missing libcudart or
 * libnccl, say) is the reason given when it cannot be opened.
 */
#include "fc_plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_results.h"

static char fc_plugin_loaded_path[4096];
static int fc_plugin_loaded_bundled;

const char *fc_plugin_path(int *bundled_p)
{
    if (bundled_p)
        *bundled_p = fc_plugin_loaded_bundled;
    return fc_plugin_loaded_path;
}

void fc_plugin_built_path(char *path, size_t len)
{
    char alt[4096];

    fc_path_beside_exe("../" FC_GPU_PLUGIN_FILE, path, len);
    fc_path_beside_exe(FC_GPU_PLUGIN_FILE, alt, sizeof(alt));
    if (access(path, R_OK) != 0 && access(alt, R_OK) == 0)
        snprintf(path, len, "%s", alt);
}

const fc_gpu_plugin_t *fc_plugin_load(char *why, size_t len)
{
    static const fc_gpu_plugin_t *loaded;
    char path[4096];
    const char *env = getenv("FABCERT_GPU_PLUGIN");
    const fc_gpu_plugin_t *p;
    void *h;

    if (loaded)
        return loaded;
    if (env && env[0])
        snprintf(path, sizeof(path), "%s", env);
    else
        fc_plugin_built_path(path, sizeof(path));
    if (access(path, R_OK) != 0) {
        snprintf(why, len, "the GPU plugin %s is missing (%s)", path,
                 env && env[0] ? "$FABCERT_GPU_PLUGIN" :
                 "not built: no CUDA toolkit or NCCL where fabcert was built");
        return NULL;
    }
    if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        snprintf(why, len, "cannot load the GPU plugin: %s", dlerror());
        return NULL;
    }
    p = (const fc_gpu_plugin_t *)dlsym(h, FC_GPU_PLUGIN_SYMBOL);
    if (p == NULL || p->abi != FC_GPU_PLUGIN_ABI) {
        /* an older plugin exports an older table: say which, and the fix */
        static const char *const older[] = { "fc_gpu_plugin_v5", "fc_gpu_plugin_v4", "fc_gpu_plugin_v3",
                                             "fc_gpu_plugin_v2", "fc_gpu_plugin_v1" };
        const int *old = NULL;

        for (size_t i = 0; old == NULL && i < sizeof(older) / sizeof(older[0]); ++i)
            old = dlsym(h, older[i]);

        if (p == NULL && old != NULL)
            snprintf(why, len, "%s is a fabcert GPU plugin of ABI %d, this program needs "
                     "ABI %d: rebuild it (make)", path, *old, FC_GPU_PLUGIN_ABI);
        else
            snprintf(why, len, "%s is not a fabcert GPU plugin of ABI %d", path,
                     FC_GPU_PLUGIN_ABI);
        dlclose(h);
        return NULL;
    }
    loaded = p;
    snprintf(fc_plugin_loaded_path, sizeof(fc_plugin_loaded_path), "%s", path);
    fc_plugin_loaded_bundled = !(env && env[0]);
    return p;
}
