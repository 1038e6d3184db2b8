/*
 * verbs_protocol.c - the verbs transport's data path (lib/nic/fc_nic_verbs_io.c)
 * without an RDMA device: two endpoints in one process, one thread each,
 * whose queue pair and completion queues are simulated through the
 * provider table that libibverbs' inline ibv_post_send, ibv_post_recv and
 * ibv_poll_cq call (ctx->ops): a send or RDMA write is copied into the
 * peer's buffer at once, with the completions an RC queue pair would give.
 * What it shows, on the transport's own code:
 *   - transfers (1 MiB both ways, 4099 B, 0 B) and pingpongs arrive
 *     bitwise, each RDMA write where the peer's address says;
 *   - nothing lands in a buffer from the moment a transfer's last byte is
 *     there until its owner has checked it (the receiver sleeps 20 ms in
 *     its check while the sender goes on at once: a transfer, then a
 *     pingpong): the credits. Without them (tried on a copy of
 *     fc_nic_verbs_io.c) the first transfer's check fails, the bytes of
 *     the second having landed before it, and the absent peer's transfer
 *     passes;
 *   - a peer that never comes: FC_ERR_TIMEOUT by the deadline, naming what
 *     did not come, the device and the peer;
 *   - a completion error planted in the simulated queue pair (transport
 *     retry counter exceeded): FC_ERR_FAIL naming ibv_wc_status_str, the
 *     device and the peer;
 *   - calls out of step (a transfer against a pingpong), a ping of the
 *     wrong size, a transfer beyond the buffer: each named, none OK.
 * What it cannot show is the hardware: tests/rdma/run-rdma-checks.
 *
 * lane: pinned, about 1 s (a receiver sleeping 20 ms against a sender that goes on)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "fc_tap.h"

#ifndef FC_HAVE_VERBS
int main(void)
{
    printf("1..0 # SKIP built without libibverbs (no infiniband/verbs.h)\n");
    return 0;
}
#else

#include "fc_nic_verbs_int.h"

#define BUF (2u << 20)
#define QMAX 256

typedef struct side {
    fc_nic_ep_t *ep;
    struct ibv_context ctx;
    struct ibv_qp qp;
    struct ibv_cq scq, rcq;
    struct ibv_mr mr;
    struct ibv_sge posted[QMAX];    /* receives posted, in order */
    int ph, pn;
    struct ibv_wc sq[QMAX], rq[QMAX];
    int sh, sn, rh, rn;
    int checking;                   /* from a transfer's last byte to its check */
    int landed_while_checking;      /* bytes that arrived then: must stay 0 */
    unsigned char *buf;
} side_t;

static side_t S[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static enum ibv_wc_status plant = IBV_WC_SUCCESS;  /* the next write's fate */
static fc_tap_t tap;

static void push(struct ibv_wc *q, int h, int *n, struct ibv_wc wc)
{
    q[(h + *n) % QMAX] = wc;
    ++*n;
}

static void land(side_t *to, void *dst, const void *src, uint32_t bytes)
{
    if (bytes && to->checking)
        to->landed_while_checking += (int)bytes;
    memcpy(dst, src, bytes);
}

static int sim_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    side_t *me = qp->qp_context, *peer = &S[me == &S[0]];

    pthread_mutex_lock(&mu);
    for (; wr; wr = wr->next) {
        uint32_t bytes = wr->num_sge ? wr->sg_list[0].length : 0;
        const void *src = wr->num_sge ? (const void *)(uintptr_t)wr->sg_list[0].addr : NULL;
        struct ibv_wc wc = {.status = IBV_WC_SUCCESS};

        if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM && plant != IBV_WC_SUCCESS) {
            wc.status = plant;          /* lost on the wire: retries ran out */
            wc.vendor_err = 0x81;
            plant = IBV_WC_SUCCESS;
            push(me->sq, me->sh, &me->sn, wc);
            continue;
        }
        if (wr->opcode == IBV_WR_RDMA_WRITE || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
            land(peer, (void *)(uintptr_t)wr->wr.rdma.remote_addr, src, bytes);
            wc.opcode = IBV_WC_RDMA_WRITE;
        } else {
            wc.opcode = IBV_WC_SEND;
        }
        if (wr->opcode != IBV_WR_RDMA_WRITE) {  /* consumes a receive of the peer's */
            struct ibv_wc rwc = {.status = IBV_WC_SUCCESS, .byte_len = bytes,
                                 .wc_flags = IBV_WC_WITH_IMM};

            rwc.imm_data = wr->imm_data;
            rwc.opcode = wr->opcode == IBV_WR_SEND_WITH_IMM ? IBV_WC_RECV
                                                            : IBV_WC_RECV_RDMA_WITH_IMM;
            if (peer->pn == 0 || (wr->opcode == IBV_WR_SEND_WITH_IMM &&
                                  bytes > peer->posted[peer->ph].length)) {
                wc.status = peer->pn ? IBV_WC_REM_INV_REQ_ERR : IBV_WC_RNR_RETRY_EXC_ERR;
                push(me->sq, me->sh, &me->sn, wc);
                continue;
            }
            if (wr->opcode == IBV_WR_SEND_WITH_IMM)
                land(peer, (void *)(uintptr_t)peer->posted[peer->ph].addr, src, bytes);
            peer->ph = (peer->ph + 1) % QMAX;
            --peer->pn;
            push(peer->rq, peer->rh, &peer->rn, rwc);
        }
        if (wr->send_flags & IBV_SEND_SIGNALED)
            push(me->sq, me->sh, &me->sn, wc);
    }
    pthread_mutex_unlock(&mu);
    *bad = NULL;
    return 0;
}

static int sim_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    side_t *me = qp->qp_context;

    pthread_mutex_lock(&mu);
    me->posted[(me->ph + me->pn) % QMAX] = wr->num_sge ? wr->sg_list[0] : (struct ibv_sge){0};
    ++me->pn;
    pthread_mutex_unlock(&mu);
    *bad = NULL;
    return 0;
}

static int sim_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    side_t *me = cq->cq_context;
    int got = 0;

    pthread_mutex_lock(&mu);
    if (cq == &me->scq && me->sn > 0) {
        *wc = me->sq[me->sh];
        me->sh = (me->sh + 1) % QMAX;
        --me->sn;
        got = 1;
    } else if (cq == &me->rcq && me->rn > 0) {
        *wc = me->rq[me->rh];
        /* a transfer's last byte is here: from now until its owner has
         * checked them, nothing may land in its buffer */
        if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM)
            me->checking = 1;
        me->rh = (me->rh + 1) % QMAX;
        --me->rn;
        got = 1;
    }
    pthread_mutex_unlock(&mu);
    return got;
}

/* Two fresh endpoints, connected to each other, receives posted. */
static void setup(void)
{
    for (int i = 0; i < 2; ++i) {
        side_t *s = &S[i];

        free(s->ep);
        free(s->buf);
        memset(s, 0, sizeof(*s));
        s->buf = calloc(1, BUF);
        s->ep = calloc(1, sizeof(*s->ep));
        s->ctx.ops.post_send = sim_post_send;
        s->ctx.ops.post_recv = sim_post_recv;
        s->ctx.ops.poll_cq = sim_poll_cq;
        s->qp.context = s->scq.context = s->rcq.context = &s->ctx;
        s->qp.qp_context = s->scq.cq_context = s->rcq.cq_context = s;
        s->mr.lkey = 7;
        snprintf(s->ep->nic, sizeof(s->ep->nic), "sim%d", i);
        snprintf(s->ep->port.dev, sizeof(s->ep->port.dev), "sim%d", i);
        s->ep->port.port = 1;
        s->ep->peer = s->ep->peer_world = 1 - i;
        snprintf(s->ep->peer_host, sizeof(s->ep->peer_host), "host%d", 1 - i);
        snprintf(s->ep->peer_dev, sizeof(s->ep->peer_dev), "sim%d", 1 - i);
        s->ep->peer_port = 1;
        s->ep->qp = &s->qp;
        s->ep->send_cq = &s->scq;
        s->ep->recv_cq = &s->rcq;
        s->ep->mr = &s->mr;
        s->ep->buf = (char *)s->buf;
        s->ep->len = BUF;
        s->ep->recv_len = BUF;
    }
    for (int i = 0; i < 2; ++i) {
        S[i].ep->peer_addr = (uintptr_t)S[1 - i].buf;
        S[i].ep->peer_len = BUF;
        for (int k = 0; k < FC_VERBS_RECVS; ++k)
            fc_verbs_post_recv(S[i].ep);
    }
}

static void pattern(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; ++i)
        b[i] = (unsigned char)(i * 131 + seed * 17 + (i >> 9));
}

static int same(const unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; ++i)
        if (b[i] != (unsigned char)(i * 131 + seed * 17 + (i >> 9)))
            return 0;
    return 1;
}

/* The clean script, run by both sides in lockstep. */
typedef struct result {
    fc_status_t st[8];
    int ok[8];
    char why[8][FC_NIC_WHY_MAX];
} result_t;
static result_t R[2];

static void slow_check(side_t *s, int step, size_t n, unsigned seed)
{
    usleep(20000);                      /* the sender is told nothing of this */
    R[s == &S[1]].ok[step] = same(s->buf, n, seed);
    pthread_mutex_lock(&mu);
    s->checking = 0;
    pthread_mutex_unlock(&mu);
}

static void xfer(int me, int step, int sender, size_t n, unsigned seed)
{
    side_t *s = &S[me];

    if (me == sender)
        pattern(s->buf, n, seed);
    R[me].st[step] = fc_verbs_transfer(s->ep, me == sender, n, MPI_Wtime() + 5,
                                       R[me].why[step], FC_NIC_WHY_MAX);
    if (me != sender)
        slow_check(s, step, n, seed);
    else
        R[me].ok[step] = 1;
}

static void *clean(void *arg)
{
    int me = (int)(intptr_t)arg;
    side_t *s = &S[me];

    xfer(me, 0, 0, 1u << 20, 1);
    xfer(me, 1, 0, 1u << 20, 2);        /* at once: the receiver is still checking */
    R[me].ok[2] = 1;                    /* a run of pingpongs, also at once */
    if (me == 0)
        pattern(s->buf, 8, 3);
    for (int i = 0; i < 50 && R[me].st[2] == FC_OK; ++i)
        R[me].st[2] = fc_verbs_pingpong(s->ep, me == 0, 8, MPI_Wtime() + 5, R[me].why[2],
                                        FC_NIC_WHY_MAX);
    R[me].ok[2] = same(s->buf, 8, 3);   /* the ping there, echoed back here */
    xfer(me, 3, 1, 4099, 4);
    xfer(me, 4, 0, 0, 5);
    xfer(me, 5, 1, 1u << 20, 6);
    return NULL;
}

/* Each side's calls in a thread: a is side 0's, b side 1's. */
static void both(void *(*a)(void *), void *(*b)(void *))
{
    pthread_t t[2];

    pthread_create(&t[0], NULL, a, (void *)(intptr_t)0);
    pthread_create(&t[1], NULL, b, (void *)(intptr_t)1);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
}

/* Each side's deadline in the cases below: long for a side that must get
 * an answer (a thread that starts late on a busy machine is no fault),
 * short for one that must time out. */
static double wait_s[2];

static void *send_4k(void *arg)
{
    int me = (int)(intptr_t)arg;

    R[me].st[0] = fc_verbs_transfer(S[me].ep, me == 0, 4096, MPI_Wtime() + wait_s[me],
                                    R[me].why[0], FC_NIC_WHY_MAX);
    return NULL;
}

static void *pong_8(void *arg)
{
    int me = (int)(intptr_t)arg;

    R[me].st[0] = fc_verbs_pingpong(S[me].ep, me == 0, me == 0 ? 16 : 8,
                                    MPI_Wtime() + wait_s[me], R[me].why[0], FC_NIC_WHY_MAX);
    return NULL;
}

static void *absent(void *arg)
{
    return NULL;
}

static void is_status(int side, fc_status_t want, const char *says, const char *what)
{
    fc_tap_is_int(&tap, R[side].st[0], want, "%s: side %d %s saying \"%s\" (got %s: %s)", what,
                  side, fc_status_str(want), says, fc_status_str(R[side].st[0]), R[side].why[0]);
    fc_tap_ok(&tap, strstr(R[side].why[0], says) != NULL,
              "%s: side %d %s saying \"%s\" (got %s: %s)"
              " [strstr(R[side].why[0], says) != NULL]", what, side, fc_status_str(want), says,
              fc_status_str(R[side].st[0]), R[side].why[0]);
}

int main(void)
{
    static const char *steps[] = {"transfer 1 MiB 0 -> 1", "transfer 1 MiB 0 -> 1 again at once",
                                  "50 pingpongs of 8 B, at once after it",
                                  "transfer 4099 B 1 -> 0", "transfer 0 B 0 -> 1",
                                  "transfer 1 MiB 1 -> 0 after 0 B"};
    char why[FC_NIC_WHY_MAX];
    fc_status_t st;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 32);

    setup();
    memset(R, 0, sizeof(R));
    both(clean, clean);
    for (int k = 0; k < 6; ++k) {
        fc_tap_is_int(&tap, R[0].st[k], FC_OK, "%s: both OK, bitwise equal (%s %s%s%s)",
                      steps[k], fc_status_str(R[0].st[k]), fc_status_str(R[1].st[k]),
                      R[0].why[k], R[1].why[k]);
        fc_tap_is_int(&tap, R[1].st[k], FC_OK, "%s: both OK, bitwise equal (%s %s%s%s) "
                      "[R[1].st[k]]", steps[k], fc_status_str(R[0].st[k]),
                      fc_status_str(R[1].st[k]), R[0].why[k], R[1].why[k]);
        fc_tap_ok(&tap, R[0].ok[k] && R[1].ok[k], "%s: both OK, bitwise equal (%s %s%s%s) "
                  "[R[0].ok[k] && R[1].ok[k]]", steps[k], fc_status_str(R[0].st[k]),
                  fc_status_str(R[1].st[k]), R[0].why[k], R[1].why[k]);
    }
    fc_tap_is_int(&tap, S[0].landed_while_checking, 0,
                  "no byte landed in a buffer while its owner was checking it (%d, %d)",
                  S[0].landed_while_checking, S[1].landed_while_checking);
    fc_tap_is_int(&tap, S[1].landed_while_checking, 0,
                  "no byte landed in a buffer while its owner was checking it (%d, %d)"
                  " [S[1].landed_while_checking]", S[0].landed_while_checking,
                  S[1].landed_while_checking);

    setup();
    memset(R, 0, sizeof(R));
    wait_s[0] = 0.3;
    both(send_4k, absent);
    is_status(0, FC_ERR_TIMEOUT, "verbs sim0 port 1 (NIC sim0) to rank 1 (sim1 port 1 on host1): "
              "no credit of call 0 within the deadline", "a peer that never comes");

    setup();
    memset(R, 0, sizeof(R));
    plant = IBV_WC_RETRY_EXC_ERR;
    wait_s[0] = 5, wait_s[1] = 0.5;
    both(send_4k, send_4k);
    is_status(0, FC_ERR_FAIL, "verbs sim0 port 1 (NIC sim0) to rank 1 (sim1 port 1 on host1): "
              "RDMA write completion: completion error: transport retry counter exceeded "
              "(wc status 12, vendor error 0x81)", "a write lost, retries exceeded");
    is_status(1, FC_ERR_TIMEOUT, "no RDMA write immediate of call 0 within the deadline",
              "a write lost, retries exceeded");

    setup();
    memset(R, 0, sizeof(R));
    wait_s[0] = wait_s[1] = 5;
    both(send_4k, pong_8);
    is_status(1, FC_ERR_INTERNAL, "expected the ping of call 0, got a RDMA write immediate of "
              "call 0 (opcode 129): the two sides' calls are out of step",
              "a transfer against a pingpong");

    setup();
    memset(R, 0, sizeof(R));
    wait_s[0] = 0.3, wait_s[1] = 5;
    both(pong_8, pong_8);
    is_status(1, FC_ERR_FAIL, "the ping carried 16 bytes, 8 expected", "a ping of the wrong size");

    st = fc_verbs_transfer(S[0].ep, 1, BUF + 1, MPI_Wtime() + 1, why, sizeof(why));
    fc_tap_is_int(&tap, st, FC_ERR_INVALID, "a transfer beyond the buffer: invalid (%s: %s)",
                  fc_status_str(st), why);
    fc_tap_ok(&tap, strstr(why, "a transfer of 2097153 bytes, beyond") != NULL,
              "a transfer beyond the buffer: invalid (%s: %s)"
              " [names 'a transfer of 2097153 bytes, beyond']", fc_status_str(st), why);
    return fc_tap_done(&tap);
}

#endif
