/* fc_version.h - the tool version; the build adds the source revision. */
#ifndef FC_VERSION_H
#define FC_VERSION_H
#ifndef FC_GIT_REVISION
#define FC_GIT_REVISION "unknown"
#endif
#define FC_VERSION "0.1.0+" FC_GIT_REVISION
#endif
