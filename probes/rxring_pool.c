/* rxring_pool.c — the rx ring's making (rxring.h): its descriptors and
 * buffer_info, and the pool of packets a refill takes from, shuffled so
 * that no prefetcher learns the order, warm or spread over a cold working
 * set. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "probes/rxring.h"

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static void shuffle(uint32_t *a, size_t n, uint64_t *seed)
{
    for (size_t i = 0; i < n; i++)
        a[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd(seed) % i;
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* The header checksum written by setup: RFC 1071 over big-endian pairs. */
static uint16_t hdr_csum(const unsigned char *ip, size_t len)
{
    uint32_t s = 0;
    for (size_t k = 0; k < len; k += 2)
        s += (uint32_t)ip[k] << 8 | ip[k + 1];
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

static void write_packet(struct cb_rx_ring *r, unsigned char *eth, size_t k, unsigned len,
                         uint64_t *seed)
{
    uint64_t x = rnd(seed);
    int bad = k == 1 || (k > 2 && x % 37 == 0);
    int arp = k == 2 || (k > 2 && !bad && (x >> 8) % 53 == 0);
    unsigned ihl = (x >> 16) % 11 == 0 ? 6 : 5;
    for (int b = 0; b < 6; b++) {
        eth[b] = (unsigned char)(0x02 + b);          /* dst: a local MAC */
        eth[6 + b] = (unsigned char)(rnd(seed) | 2); /* src */
    }
    eth[6] &= 0xfe;
    unsigned type = arp ? 0x0806 : 0x0800;
    eth[12] = (unsigned char)(type >> 8);
    eth[13] = (unsigned char)type;
    unsigned char *ip = eth + 14;
    unsigned tot = len - 14;
    uint64_t y = rnd(seed);
    ip[0] = (unsigned char)(0x40 | ihl);
    ip[1] = 0;
    ip[2] = (unsigned char)(tot >> 8);
    ip[3] = (unsigned char)tot;
    ip[4] = (unsigned char)(y >> 8);
    ip[5] = (unsigned char)y;
    ip[6] = 0x40; /* DF */
    ip[7] = 0;
    ip[8] = 64;
    ip[9] = 17;
    ip[10] = ip[11] = 0;
    for (int b = 0; b < 8; b++)
        ip[12 + b] = (unsigned char)(y >> (16 + 5 * b));
    if (ihl == 6) {
        ip[20] = 0x94; /* router alert */
        ip[21] = 4;
        ip[22] = ip[23] = 0;
    }
    uint16_t cs = hdr_csum(ip, 4 * ihl);
    if (bad)
        cs ^= (uint16_t)(1u << (y % 16));
    ip[10] = (unsigned char)(cs >> 8);
    ip[11] = (unsigned char)cs;
    if (arp)
        r->planted_non_ip++;
    else if (bad)
        r->planted_bad_csum++;
}

size_t cb_rx_pool_size(enum cb_mode mode, size_t cold_bytes)
{
    if (mode != CB_MODE_COLD)
        return CB_RX_WARM_POOL;
    /* Lines touched per packet: skb lines 0 and 2, and the header line. */
    size_t p = cold_bytes / 192;
    return p < 2 ? 2 : p;
}

void cb_rx_ring_free(struct cb_rx_ring *r)
{
    if (r->mem)
        munmap(r->mem, r->mem_len);
    free(r->desc);
    free(r->binfo);
    free(r->rx_data);
    free(r->pool_skb);
    free(r->pool_data);
    free(r->pool_len);
    memset(r, 0, sizeof *r);
}

int cb_rx_ring_init(struct cb_rx_ring *r, size_t ndesc, size_t npool, uint64_t seed, int cold)
{
    memset(r, 0, sizeof *r);
    if (ndesc < 2 || npool < 2 || npool > UINT32_MAX)
        return -EINVAL;
    r->ndesc = ndesc;
    r->npool = npool;
    r->desc = aligned_alloc(64, (ndesc * sizeof *r->desc + 63) & ~(size_t)63);
    r->binfo = aligned_alloc(64, (ndesc * sizeof *r->binfo + 63) & ~(size_t)63);
    r->rx_data = calloc(ndesc, sizeof *r->rx_data);
    r->pool_skb = calloc(npool, sizeof *r->pool_skb);
    r->pool_data = calloc(npool, sizeof *r->pool_data);
    r->pool_len = calloc(npool, sizeof *r->pool_len);
    uint32_t *perm = calloc(npool, sizeof *perm);
    r->mem_len = npool * (sizeof(struct cb_skb) + CB_RX_BUF_STRIDE);
    void *m = mmap(NULL, r->mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        m = NULL;
        r->mem_len = 0;
    }
    r->mem = m;
    if (!r->desc || !r->binfo || !r->rx_data || !r->pool_skb || !r->pool_data || !r->pool_len ||
        !perm || !r->mem) {
        free(perm);
        cb_rx_ring_free(r);
        return -ENOMEM;
    }
#ifdef MADV_HUGEPAGE
    /* As workset.c: kernel packet memory sits in the huge-page direct map;
     * the cold case should pay cache misses, not a TLB miss per page. */
    if (cold)
        (void)madvise(r->mem, r->mem_len, MADV_HUGEPAGE);
#else
    (void)cold;
#endif
    memset(r->mem, 0, r->mem_len);
    memset(r->desc, 0, ndesc * sizeof *r->desc);
    memset(r->binfo, 0, ndesc * sizeof *r->binfo);

    /* Shuffled placement: consecutive packets live at unrelated addresses. */
    struct cb_skb *skbs = (struct cb_skb *)r->mem;
    unsigned char *bufs = r->mem + npool * sizeof(struct cb_skb);
    shuffle(perm, npool, &seed);
    for (size_t k = 0; k < npool; k++)
        r->pool_skb[k] = &skbs[perm[k]];
    shuffle(perm, npool, &seed);
    for (size_t k = 0; k < npool; k++) {
        unsigned char *buf = bufs + (size_t)perm[k] * CB_RX_BUF_STRIDE;
        unsigned char *data = buf + CB_RX_HEADROOM + CB_RX_NET_IP_ALIGN;
        unsigned len = 60 + (unsigned)(rnd(&seed) % (1514 - 60 + 1));
        struct cb_skb *skb = r->pool_skb[k];
        skb->head = buf;
        skb->data = data;
        skb->tail = data;
        skb->end = buf + CB_RX_BUF_STRIDE;
        skb->truesize = CB_RX_BUF_STRIDE + sizeof *skb;
        r->pool_data[k] = data;
        r->pool_len[k] = (uint16_t)len;
        write_packet(r, data, k, len, &seed);
    }
    free(perm);

    /* Arm every slot, as the driver does at open. */
    for (size_t i = 0; i < ndesc; i++) {
        size_t k = r->pool_cur;
        r->desc[i].buffer_addr = (uintptr_t)r->pool_data[k];
        r->desc[i].length = r->pool_len[k];
        r->desc[i].status = CB_RX_DD;
        r->binfo[i].skb = r->pool_skb[k];
        r->binfo[i].dma = (uintptr_t)r->pool_data[k];
        r->rx_data[i] = r->pool_data[k];
        if (++r->pool_cur == npool)
            r->pool_cur = 0;
    }
    return 0;
}
