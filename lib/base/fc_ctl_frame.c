/*
 * fc_ctl_frame.c - see fc_ctl_frame.h. The checksum covers every byte
 * that travels (the head with its sum field zero, then the payload), so
 * any one bit changed anywhere in a frame is found; the length is checked
 * against what arrived before the checksum is computed over it, so a
 * changed length cannot make the check read past the frame.
 */
#include "fc_ctl_frame.h"

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

uint32_t fc_ctl_tag(const char *what)
{
    return XXH32(what, strlen(what), 0x46435447u);
}

uint64_t fc_ctl_sum(const void *data, size_t len)
{
    return XXH64(data, len, 0x46435453u);
}

static uint64_t fc_ctl_frame_sum(const fc_ctl_head_t *head, const void *payload, size_t len)
{
    fc_ctl_head_t h = *head;

    h.sum = 0;
    return XXH64(payload, len, XXH64(&h, sizeof(h), 0));
}

void fc_ctl_frame_seal(void *frame, const char *what, int from, int from_world,
                       const void *payload, size_t len)
{
    fc_ctl_head_t h;
    unsigned char *body = (unsigned char *)frame + FC_CTL_HEAD;

    memset(&h, 0, sizeof(h));
    h.magic = FC_CTL_MAGIC;
    h.tag = fc_ctl_tag(what);
    h.from = from;
    h.from_world = from_world;
    h.len = len;
    if (len > 0 && payload != body)
        memmove(body, payload, len);
    h.sum = fc_ctl_frame_sum(&h, body, len);
    memcpy(frame, &h, sizeof(h));
}

int fc_ctl_frame_open(const void *frame, size_t size, const char *what, int from, size_t len,
                      char *why, size_t whylen)
{
    fc_ctl_head_t h;
    const unsigned char *body = (const unsigned char *)frame + FC_CTL_HEAD;

    if (size < FC_CTL_HEAD || frame == NULL) {
        snprintf(why, whylen, "%zu bytes arrived, fewer than a control message's head", size);
        return -1;
    }
    memcpy(&h, frame, sizeof(h));
    if (h.len != (uint64_t)(size - FC_CTL_HEAD)) {
        snprintf(why, whylen, "its head announces %llu bytes but %zu arrived",
                 (unsigned long long)h.len, size - FC_CTL_HEAD);
        return -1;
    }
    if (h.sum != fc_ctl_frame_sum(&h, body, size - FC_CTL_HEAD)) {
        snprintf(why, whylen, "its checksum does not match: a bit changed on the way");
        return -1;
    }
    if (h.magic != FC_CTL_MAGIC) {
        snprintf(why, whylen, "it is not a control message (magic 0x%08x)", h.magic);
        return -1;
    }
    if (h.tag != fc_ctl_tag(what)) {
        snprintf(why, whylen, "it belongs to another exchange (tag 0x%08x): the sender "
                 "is at another step of the stage", h.tag);
        return -1;
    }
    if (from >= 0 && h.from != from) {
        snprintf(why, whylen, "it says it comes from rank %d, not %d", (int)h.from, from);
        return -1;
    }
    if (h.len != len) {
        snprintf(why, whylen, "it holds %llu bytes where %zu were expected",
                 (unsigned long long)h.len, len);
        return -1;
    }
    return 0;
}
