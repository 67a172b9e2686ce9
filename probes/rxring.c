/* rxring.c — the e1000 RX clean loop with every prefetch combination (see
 * rxring.h for the model and the 2005 thread behind it).
 *
 * Each variant is the same always-inline loop, rx_clean(), instantiated
 * with constant parameters by the RX_VARIANTS table, so every variant
 * compiles to its own loop with no per-packet test of which prefetches are
 * on.  The variant's fn points at a const rx_params holding that loop. */
#include "probes/rxring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "host/cpu.h"
#include "harness/workset.h"

enum { PF_T0, PF_NTA, PF_W };
/* Where a "next packet" address comes from: ADDR_DEP follows the driver's
 * pointers (buffer_info -> skb -> skb->data: prefetch(*ptr), the loads
 * must complete first); ADDR_KNOWN reads it from rx_data[], a side array
 * the refill wrote (prefetch(ptr): the address is at hand). */
enum { ADDR_DEP, ADDR_KNOWN };

#define PT1 1u  /* skb->data of this packet */
#define PT2 2u  /* next descriptor */
#define PT3 4u  /* next buffer_info */
#define PT4 8u  /* next skb */
#define PT5 16u /* next skb->data */

#define ALWAYS_INLINE inline __attribute__((always_inline))

typedef void (*rx_loop_fn)(struct cb_rx_ring *r, uint64_t n);

struct rx_params {
    rx_loop_fn loop;
    unsigned points;  /* PT* */
    unsigned dist;    /* packets ahead for #2..#5 */
    unsigned kind;    /* PF_* */
    unsigned addr;    /* ADDR_* */
    unsigned burst;   /* >0: data lines of the next burst packets at once */
};

static ALWAYS_INLINE void pf(const void *p, unsigned kind)
{
#if defined(__x86_64__) || defined(__i386__)
    if (kind == PF_NTA)
        __asm__ __volatile__("prefetchnta %0" : : "m"(*(const char *)p));
    else if (kind == PF_W)
        __asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)p));
    else
        __asm__ __volatile__("prefetcht0 %0" : : "m"(*(const char *)p));
#elif defined(__aarch64__)
    /* The x86 hints' arm64 counterparts: t0 -> keep in L1, nta -> L1
     * streaming (allocate, but first to go), w -> prefetch for store.  asm,
     * not __builtin_prefetch: GCC 12 -O2 dropped the builtin from most of
     * these loops (pf-1 compiled to none's code). */
    if (kind == PF_NTA)
        __asm__ __volatile__("prfm pldl1strm, [%0]" : : "r"(p), "m"(*(const char *)p));
    else if (kind == PF_W)
        __asm__ __volatile__("prfm pstl1keep, [%0]" : : "r"(p), "m"(*(const char *)p));
    else
        __asm__ __volatile__("prfm pldl1keep, [%0]" : : "r"(p), "m"(*(const char *)p));
#else
    __builtin_prefetch(p, kind == PF_W, kind == PF_NTA ? 0 : 3);
#endif
}

static ALWAYS_INLINE uint32_t ld32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static ALWAYS_INLINE unsigned be16(const unsigned char *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

/* Header checksum by 32-bit words with end-around carry: the ones'
 * complement sum is the same at any word width, and a valid header sums
 * to 0xffff. */
static ALWAYS_INLINE int ipv4_csum_ok(const unsigned char *ip, unsigned ihl)
{
    uint64_t s = 0;
    for (unsigned w = 0; w < ihl; w++)
        s += ld32(ip + 4 * w);
    s = (s & 0xffffffffu) + (s >> 32);
    s = (s & 0xffffffffu) + (s >> 32);
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return s == 0xffff;
}

/* The prefetches of slot j, d ahead of the one being cleaned (PT2..PT5). */
static ALWAYS_INLINE void pf_ahead(struct cb_rx_desc *const ring, struct cb_rx_buffer *const bi,
                                   unsigned char **const rx_data, size_t j, const unsigned pts,
                                   const unsigned kind, const unsigned addr)
{
    if (pts & PT2)
        pf(&ring[j], kind);
    if (pts & PT3)
        pf(&bi[j], kind);
    if (pts & (PT4 | PT5)) {
        if (addr == ADDR_KNOWN) {
            if (pts & PT4)
                pf(bi[j].skb, kind);
            if (pts & PT5)
                pf(rx_data[j] - CB_RX_NET_IP_ALIGN, kind);
        } else {
            struct cb_skb *next_skb = bi[j].skb;
            if (pts & PT4)
                pf(next_skb, kind);
            if (pts & PT5)
                pf(next_skb->data - CB_RX_NET_IP_ALIGN, kind);
        }
    }
}

/* What the stack does with one received frame of len bytes: parse it,
 * check an IPv4 header's checksum, count it. */
static ALWAYS_INLINE void rx_packet(struct cb_skb *skb, unsigned len, struct cb_rx_result *a)
{
    const unsigned char *eth = skb->data;
    const unsigned char *ip = eth + 14;
    unsigned proto = be16(eth + 12);
    unsigned vihl = ip[0];
    a->packets++;
    if (proto == 0x0800 && (vihl >> 4) == 4 && (vihl & 15) >= 5 &&
        be16(ip + 2) + 14 <= len && be16(ip + 2) >= 4 * (vihl & 15)) {
        if (ipv4_csum_ok(ip, vihl & 15)) {
            a->ipv4_ok++;
            a->bytes += len;
            a->addr_sum += ld32(ip + 12) ^ ld32(ip + 16);
        } else {
            a->bad_csum++;
        }
    } else {
        a->non_ip++;
    }
    skb->len = len;
    skb->protocol = (uint16_t)proto;
}

static ALWAYS_INLINE void rx_clean(struct cb_rx_ring *r, uint64_t iters, const unsigned pts,
                                   const unsigned dist, const unsigned kind, const unsigned addr,
                                   const unsigned burst)
{
    struct cb_rx_desc *const ring = r->desc;
    struct cb_rx_buffer *const bi = r->binfo;
    unsigned char **const rx_data = r->rx_data;
    struct cb_skb *const *const pool_skb = r->pool_skb;
    unsigned char *const *const pool_data = r->pool_data;
    const uint16_t *const pool_len = r->pool_len;
    const size_t n = r->ndesc, np = r->npool;
    const size_t d = dist < n ? dist : dist % n;
    size_t i = r->next, cur = r->pool_cur, phase = r->burst_phase;
    struct cb_rx_result a = r->res;

    for (uint64_t it = 0; it < iters; it++) {
        struct cb_rx_desc *rxd = &ring[i];
        if (burst) {
            /* Ask for the next group's data lines all at once: more
             * outstanding lines than the miss buffers hold. */
            if (phase == 0)
                for (unsigned k = 0; k < burst; k++) {
                    size_t j = i + burst + k;
                    while (j >= n)
                        j -= n;
                    pf(rx_data[j] - CB_RX_NET_IP_ALIGN, kind);
                }
            if (++phase == burst)
                phase = 0;
        }
        if (!(rxd->status & CB_RX_DD)) {
            /* Never taken: refill sets DD.  Counted rather than stopped on,
             * so an operation is always one packet. */
            a.non_ip++;
        }
        struct cb_skb *skb = bi[i].skb;
        if (pts & PT1)
            pf((addr == ADDR_KNOWN ? rx_data[i] : skb->data) - CB_RX_NET_IP_ALIGN, kind);
        if (pts & (PT2 | PT3 | PT4 | PT5)) {
            size_t j = i + d;
            if (j >= n)
                j -= n;
            pf_ahead(ring, bi, rx_data, j, pts, kind, addr);
        }
        rx_packet(skb, rxd->length, &a);

        /* Refill this slot with the next pool packet. */
        unsigned char *nd = pool_data[cur];
        rxd->buffer_addr = (uintptr_t)nd;
        rxd->length = pool_len[cur];
        rxd->status = CB_RX_DD;
        bi[i].skb = pool_skb[cur];
        bi[i].dma = (uintptr_t)nd;
        rx_data[i] = nd;
        if (++cur == np)
            cur = 0;
        if (++i == n)
            i = 0;
    }
    r->next = i;
    r->pool_cur = cur;
    r->burst_phase = phase;
    r->res = a;
}

/* The two kind variants are named for their instruction.  The others use
 * the plain read prefetch (prefetcht0, prfm pldl1keep) and say so nowhere. */
#if defined(__aarch64__)
#define RX_NTA_NAME "pf-1+2+5-pldl1strm"
#define RX_NTA_INSN "prfm pldl1strm (the prefetchnta of arm64: streaming into L1)"
#define RX_W_NAME "pf-1+2+5-pstl1keep"
#define RX_W_INSN "prfm pstl1keep"
#define RX_W_NEEDS 0 /* prfm pst*: ARMv8.0, every core */
#else
#define RX_NTA_NAME "pf-1+2+5-nta"
#define RX_NTA_INSN "prefetchnta"
#define RX_W_NAME "pf-1+2+5-w"
#define RX_W_INSN "prefetchw"
#define RX_W_NEEDS CB_CPU_PREFETCHW
#endif

/* id, name, points, distance, kind, address source, burst, needs, desc */
#define RX_VARIANTS(X) \
    X(c0, "none", 0, 1, PF_T0, ADDR_DEP, 0, 0, "no prefetch: the e1000 RX clean loop as is (2005: 517,500 pps)")                                 \
    X(c1, "pf-1", 1, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data (2005: 539,000 pps)")                                                               \
    X(c2, "pf-2", 2, 1, PF_T0, ADDR_DEP, 0, 0, "#2 next desc")                                                                                   \
    X(c3, "pf-1+2", 3, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #2 next desc (2005: 547,500 pps)")                                               \
    X(c4, "pf-3", 4, 1, PF_T0, ADDR_DEP, 0, 0, "#3 next buffer_info")                                                                            \
    X(c5, "pf-1+3", 5, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #3 next buffer_info")                                                            \
    X(c6, "pf-2+3", 6, 1, PF_T0, ADDR_DEP, 0, 0, "#2 next desc, #3 next buffer_info")                                                            \
    X(c7, "pf-1+2+3", 7, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #2 next desc, #3 next buffer_info (2005: 545,500 pps)")                        \
    X(c8, "pf-4", 8, 1, PF_T0, ADDR_DEP, 0, 0, "#4 next skb")                                                                                    \
    X(c9, "pf-1+4", 9, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #4 next skb")                                                                    \
    X(c10, "pf-2+4", 10, 1, PF_T0, ADDR_DEP, 0, 0, "#2 next desc, #4 next skb")                                                                  \
    X(c11, "pf-1+2+4", 11, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #2 next desc, #4 next skb")                                                  \
    X(c12, "pf-3+4", 12, 1, PF_T0, ADDR_DEP, 0, 0, "#3 next buffer_info, #4 next skb")                                                           \
    X(c13, "pf-1+3+4", 13, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #3 next buffer_info, #4 next skb")                                           \
    X(c14, "pf-2+3+4", 14, 1, PF_T0, ADDR_DEP, 0, 0, "#2 next desc, #3 next buffer_info, #4 next skb")                                           \
    X(c15, "pf-1+2+3+4", 15, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #2 next desc, #3 next buffer_info, #4 next skb (2005: 544,200 pps)")       \
    X(c16, "pf-5", 16, 1, PF_T0, ADDR_DEP, 0, 0, "#5 next skb->data")                                                                            \
    X(c17, "pf-1+5", 17, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #5 next skb->data")                                                            \
    X(c18, "pf-2+5", 18, 1, PF_T0, ADDR_DEP, 0, 0, "#2 next desc, #5 next skb->data")                                                            \
    X(c19, "pf-1+2+5", 19, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #2 next desc, #5 next skb->data (2005: 565,500 pps)")                        \
    X(c20, "pf-3+5", 20, 1, PF_T0, ADDR_DEP, 0, 0, "#3 next buffer_info, #5 next skb->data")                                                     \
    X(c21, "pf-1+3+5", 21, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #3 next buffer_info, #5 next skb->data")                                     \
    X(c22, "pf-2+3+5", 22, 1, PF_T0, ADDR_DEP, 0, 0, "#2 next desc, #3 next buffer_info, #5 next skb->data")                                     \
    X(c23, "pf-1+2+3+5", 23, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #2 next desc, #3 next buffer_info, #5 next skb->data (2005: 565,100 pps)") \
    X(c24, "pf-4+5", 24, 1, PF_T0, ADDR_DEP, 0, 0, "#4 next skb, #5 next skb->data")                                                             \
    X(c25, "pf-1+4+5", 25, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #4 next skb, #5 next skb->data")                                             \
    X(c26, "pf-2+4+5", 26, 1, PF_T0, ADDR_DEP, 0, 0, "#2 next desc, #4 next skb, #5 next skb->data")                                             \
    X(c27, "pf-1+2+4+5", 27, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #2 next desc, #4 next skb, #5 next skb->data")                             \
    X(c28, "pf-3+4+5", 28, 1, PF_T0, ADDR_DEP, 0, 0, "#3 next buffer_info, #4 next skb, #5 next skb->data")                                      \
    X(c29, "pf-1+3+4+5", 29, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #3 next buffer_info, #4 next skb, #5 next skb->data")                      \
    X(c30, "pf-2+3+4+5", 30, 1, PF_T0, ADDR_DEP, 0, 0, "#2 next desc, #3 next buffer_info, #4 next skb, #5 next skb->data")                      \
    X(c31, "pf-1+2+3+4+5", 31, 1, PF_T0, ADDR_DEP, 0, 0, "#1 skb->data, #2 next desc, #3 next buffer_info, #4 next skb, #5 next skb->data")      \
    X(k1, "pf-1+2+5-known", 19, 1, PF_T0, ADDR_KNOWN, 0, 0,                                       \
      "#1 #2 #5 with #1/#5 addresses from a side array: prefetch(ptr), not prefetch(*ptr)")      \
    X(d2, "pf-1+2+5-d2", 19, 2, PF_T0, ADDR_DEP, 0, 0, "#1 #2 #5, 2 packets ahead")             \
    X(d4, "pf-1+2+5-d4", 19, 4, PF_T0, ADDR_DEP, 0, 0, "#1 #2 #5, 4 packets ahead")             \
    X(d8, "pf-1+2+5-d8", 19, 8, PF_T0, ADDR_DEP, 0, 0, "#1 #2 #5, 8 packets ahead")             \
    X(d16, "pf-1+2+5-d16", 19, 16, PF_T0, ADDR_DEP, 0, 0, "#1 #2 #5, 16 packets ahead")         \
    X(kd2, "pf-1+2+5-known-d2", 19, 2, PF_T0, ADDR_KNOWN, 0, 0,                                 \
      "#1 #2 #5 from the side array, 2 packets ahead")                                          \
    X(kd4, "pf-1+2+5-known-d4", 19, 4, PF_T0, ADDR_KNOWN, 0, 0,                                 \
      "#1 #2 #5 from the side array, 4 packets ahead")                                          \
    X(kd8, "pf-1+2+5-known-d8", 19, 8, PF_T0, ADDR_KNOWN, 0, 0,                                 \
      "#1 #2 #5 from the side array, 8 packets ahead")                                          \
    X(kd16, "pf-1+2+5-known-d16", 19, 16, PF_T0, ADDR_KNOWN, 0, 0,                              \
      "#1 #2 #5 from the side array, 16 packets ahead")                                         \
    X(nta, RX_NTA_NAME, 19, 1, PF_NTA, ADDR_DEP, 0, 0, "#1 #2 #5 with " RX_NTA_INSN)            \
    X(w, RX_W_NAME, 19, 1, PF_W, ADDR_DEP, 0, RX_W_NEEDS,                                        \
      "#1 #2 #5 with " RX_W_INSN " (the loop writes skb->len; headers are only read)")          \
    X(b8, "burst-8", 0, 1, PF_T0, ADDR_KNOWN, 8, 0,                                             \
      "every 8 packets, the next 8 packets' data lines at once (fits the miss buffers)")        \
    X(b16, "burst-16", 0, 1, PF_T0, ADDR_KNOWN, 16, 0,                                          \
      "every 16 packets, the next 16 data lines at once (about the miss buffers' size)")        \
    X(b32, "burst-32", 0, 1, PF_T0, ADDR_KNOWN, 32, 0,                                          \
      "every 32 packets, the next 32 data lines at once (overflows 10-24 miss buffers)")        \
    X(b64, "burst-64", 0, 1, PF_T0, ADDR_KNOWN, 64, 0,                                          \
      "every 64 packets, the next 64 data lines at once (overflows the miss buffers)")

#define RX_DEFINE(id, nm, pts, dist, kind, addr, burst, needs, dsc)                             \
    static void rx_loop_##id(struct cb_rx_ring *r, uint64_t n)                                 \
    {                                                                                          \
        rx_clean(r, n, pts, dist, kind, addr, burst);                                          \
    }                                                                                          \
    static const struct rx_params rx_par_##id = {rx_loop_##id, pts, dist, kind, addr, burst};
RX_VARIANTS(RX_DEFINE)
#undef RX_DEFINE

#define RX_ROW(id, nm, pts, dist, kind, addr, burst, nd, dsc)                                   \
    {.name = nm, .desc = dsc, .needs = nd, .fn = &rx_par_##id,                                 \
     .flags = (pts) == 0 && (burst) == 0 ? CB_VARIANT_REFERENCE : 0},
static const struct cb_variant rx_variants[] = {RX_VARIANTS(RX_ROW)};
#undef RX_ROW

/* ---- the family ---------------------------------------------------------- */

#define RX_SEED 0x5eed2005e1000ULL

static int rx_setup(struct cb_case *c)
{
    struct cb_rx_ring *r = malloc(sizeof *r);
    if (!r)
        return -ENOMEM;
    size_t cold = c->cold_bytes ? c->cold_bytes : cb_workset_cold_bytes();
    int rc = cb_rx_ring_init(r, c->size, cb_rx_pool_size(c->mode, cold), RX_SEED,
                             c->mode == CB_MODE_COLD);
    if (rc) {
        free(r);
        return rc;
    }
    c->priv = r;
    c->bytes_per_op = 0;
    return 0;
}

static void rx_run(struct cb_case *c, uint64_t iters)
{
    struct cb_rx_ring *r = c->priv;
    const struct rx_params *p = c->variant->fn;
    p->loop(r, iters);
    c->sink += r->res.ipv4_ok + r->res.bytes;
}

static void rx_teardown(struct cb_case *c)
{
    struct cb_rx_ring *r = c->priv;
    if (r) {
        cb_rx_ring_free(r);
        free(r);
    }
    c->priv = NULL;
}

struct cb_rx_ring *cb_rx_case_ring(struct cb_case *c)
{
    return c->priv;
}

static int res_eq(const struct cb_rx_result *a, const struct cb_rx_result *b)
{
    return a->packets == b->packets && a->ipv4_ok == b->ipv4_ok && a->bad_csum == b->bad_csum &&
           a->non_ip == b->non_ip && a->bytes == b->bytes && a->addr_sum == b->addr_sum;
}

/* Same packets through the variant and through "none", on two rings built
 * from the same seed: after one ring pass and after several wraps (run in
 * uneven pieces), every count must agree. */
static int rx_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    static const struct {
        size_t ndesc, npool;
    } shapes[] = {{64, 64}, {256, 64}, {100, 307}, {256, 1031}, {4096, 97}};
    const struct rx_params *p = v->fn;
    memset(out, 0, sizeof *out);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct cb_rx_ring a, b;
        int rc = cb_rx_ring_init(&a, shapes[s].ndesc, shapes[s].npool, RX_SEED + s, 0);
        if (rc)
            return rc;
        if ((rc = cb_rx_ring_init(&b, shapes[s].ndesc, shapes[s].npool, RX_SEED + s, 0))) {
            cb_rx_ring_free(&a);
            return rc;
        }
        size_t n = shapes[s].ndesc;
        rx_loop_c0(&a, n);
        p->loop(&b, n);
        int good = res_eq(&a.res, &b.res);
        if (!good)
            snprintf(out->detail, sizeof out->detail,
                     "ring %zu pool %zu, one pass: ok/bad/other/bytes %llu/%llu/%llu/%llu, "
                     "reference %llu/%llu/%llu/%llu",
                     n, shapes[s].npool, (unsigned long long)b.res.ipv4_ok,
                     (unsigned long long)b.res.bad_csum, (unsigned long long)b.res.non_ip,
                     (unsigned long long)b.res.bytes, (unsigned long long)a.res.ipv4_ok,
                     (unsigned long long)a.res.bad_csum, (unsigned long long)a.res.non_ip,
                     (unsigned long long)a.res.bytes);
        uint64_t more = 4 * (uint64_t)n + 3;
        rx_loop_c0(&a, more);
        for (uint64_t done = 0, step = 1; good && done < more; step = step * 3 + 1) {
            uint64_t k = step < more - done ? step : more - done;
            p->loop(&b, k);
            done += k;
        }
        if (good && !res_eq(&a.res, &b.res)) {
            good = 0;
            snprintf(out->detail, sizeof out->detail,
                     "ring %zu pool %zu, after %llu packets: ok/bad/other/bytes %llu/%llu/%llu/"
                     "%llu, reference %llu/%llu/%llu/%llu",
                     n, shapes[s].npool, (unsigned long long)a.res.packets,
                     (unsigned long long)b.res.ipv4_ok, (unsigned long long)b.res.bad_csum,
                     (unsigned long long)b.res.non_ip, (unsigned long long)b.res.bytes,
                     (unsigned long long)a.res.ipv4_ok, (unsigned long long)a.res.bad_csum,
                     (unsigned long long)a.res.non_ip, (unsigned long long)a.res.bytes);
        }
        if (good && (a.res.bad_csum == 0 || a.res.non_ip == 0)) {
            good = 0;
            snprintf(out->detail, sizeof out->detail, "ring %zu: no planted bad packet seen", n);
        }
        out->checked += b.res.packets;
        cb_rx_ring_free(&a);
        cb_rx_ring_free(&b);
        if (!good)
            return 0;
    }
    out->ok = 1;
    return 0;
}

static const size_t rx_sizes[] = {256, 1024, 4096, 0};

/* The quick suite: the sizes that show where the winner changes. */
static const size_t rx_suite_sizes[] = {1024, 0};

const struct cb_probe cb_probe_rx_prefetch = {
    .name = "rx_prefetch",
    .desc = "e1000 RX clean loop with the 2005 thread's prefetch points #1..#5; "
            "size = ring descriptors, cold: shuffled packet pool over cold_bytes",
    .unit = "desc",
    .op = "packet",
    .variants = rx_variants,
    .nvariants = sizeof rx_variants / sizeof rx_variants[0],
    .sizes = rx_sizes,
    .setup = rx_setup,
    .run = rx_run,
    .verify = rx_verify,
    .teardown = rx_teardown,
    .suite_sizes = rx_suite_sizes,
    .suite_variants = "none,pf-1,pf-1+2,pf-1+2+5,pf-1+2+3+5,pf-1+2+3,pf-1+2+3+4,pf-1+2+5-d4,burst-32",
    .chart = {.kind = CB_CHART_BARS, .title = "cycles per packet by prefetch points",
              .lead = "The e1000 RX clean loop with each combination of prefetch points, fewest "
                      "cycles first. The dashed line is the loop without prefetch (<code>none</code>); "
                      "the figure after each bar is the change against it.",
              .baseline = "none"},
};
