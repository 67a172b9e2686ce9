/* rxring.h — the "rx_prefetch" probe family: the e1000 RX clean loop of the
 * 2005 netdev thread, on a simulated descriptor ring.
 *
 * Jesse Brandeburg's test measured packets/s with each set of five prefetch
 * points in e1000_clean_rx_irq_ps: #1 skb->data, #2 next rx descriptor,
 * #3 next buffer_info, #4 next skb, #5 next skb->data.  #1#2#5 won; #4#5
 * "can not be a win" because prefetch(next_skb->data) must first load
 * next_skb->data, which #4 has only just asked for: prefetch(*ptr) stalls
 * where prefetch(ptr) is free.  This family replays that loop so each
 * combination, distance, prefetch kind and address source can be timed and
 * counted (software prefetch events) on today's CPUs.
 *
 * Model.  size = descriptors in the ring (unit "desc"); one operation is
 * one packet cleaned.  Every slot has a descriptor (buffer address, length,
 * DD status), a buffer_info (skb pointer, dma address) and, through it, an
 * skb whose data pointer sits in its third cache line (as in sk_buff, far
 * from the first line that #4 prefetches).  Packets come from a pool of
 * skbs and buffers placed in shuffled order in memory, so the hardware
 * prefetchers cannot follow them: warm mode 64 packets (all in cache), cold
 * mode enough packets that the lines touched per packet (2 skb lines + 1
 * header line, 192 bytes) cover c->cold_bytes.  After cleaning a slot the
 * loop re-arms it at once with the next pool packet and sets DD: the NIC is
 * taken as infinitely fast, and the driver's refill
 * (e1000_alloc_rx_buffers) is folded into the loop, one slot at a time.
 * Packet t after setup is therefore pool packet t mod npool, whatever the
 * ring size and however run() calls are split.
 *
 * A buffer holds headroom and headers only (the payload is never read):
 * skb->data = buffer + 64 + NET_IP_ALIGN, an Ethernet header, then IPv4.
 * Per packet the loop checks DD, follows buffer_info to the skb, parses the
 * Ethernet type, the IPv4 version/IHL, validates the header checksum and
 * the total length against the descriptor's, writes skb->len/protocol (as
 * eth_type_trans does) and accumulates the result. */
#ifndef CB_PROBES_RXRING_H
#define CB_PROBES_RXRING_H

#include <stddef.h>
#include <stdint.h>

#include "harness/probe.h"

#define CB_RX_DD          0x01u /* descriptor done (E1000_RXD_STAT_DD) */
#define CB_RX_NET_IP_ALIGN 2u
#define CB_RX_HEADROOM    64u
#define CB_RX_BUF_STRIDE  128u  /* headroom + headers, line aligned */
#define CB_RX_WARM_POOL   64u

/* struct e1000_rx_desc: 16 bytes. */
struct cb_rx_desc {
    uint64_t buffer_addr;
    uint16_t length;
    uint16_t csum;
    uint8_t status;
    uint8_t errors;
    uint16_t special;
};

struct cb_skb;

/* struct e1000_buffer, roughly: 32 bytes. */
struct cb_rx_buffer {
    struct cb_skb *skb;
    uint64_t dma;
    uint64_t time_stamp;
    uint16_t length;
    uint16_t next_to_watch;
    uint32_t pad;
};

/* Three cache lines: the first (list links, len, protocol) is what
 * prefetch(skb) brings in; data lives in the third. */
struct cb_skb {
    struct cb_skb *next, *prev;
    void *dev;
    uint64_t tstamp;
    uint32_t len, data_len;
    uint16_t protocol;
    uint8_t pkt_type, pad0[5];
    unsigned char line0_rest[16];
    unsigned char cb[64];
    unsigned char *head, *data, *tail, *end;
    uint32_t truesize;
    unsigned char line2_rest[28];
} __attribute__((aligned(64)));

struct cb_rx_result {
    uint64_t packets;   /* cleaned */
    uint64_t ipv4_ok;   /* IPv4, header checksum and length valid */
    uint64_t bad_csum;  /* IPv4 with a bad header checksum */
    uint64_t non_ip;    /* not IPv4 (ethertype, version or IHL), or bad length */
    uint64_t bytes;     /* sum of descriptor lengths of ipv4_ok packets */
    uint64_t addr_sum;  /* sum of (saddr ^ daddr) of ipv4_ok packets */
};

struct cb_rx_ring {
    struct cb_rx_desc *desc;
    struct cb_rx_buffer *binfo;
    unsigned char **rx_data;      /* per slot: data address, known at refill */
    size_t ndesc;
    size_t next;                  /* next_to_clean */

    struct cb_skb **pool_skb;     /* pool packet k: its skb */
    unsigned char **pool_data;    /* its skb->data */
    uint16_t *pool_len;           /* its frame length, what the NIC reports */
    size_t npool;
    size_t pool_cur;              /* next pool packet to arm */

    unsigned char *mem;           /* skbs then buffers, one mapping */
    size_t mem_len;
    size_t burst_phase;

    size_t planted_bad_csum;      /* per pool pass, as setup wrote them */
    size_t planted_non_ip;

    struct cb_rx_result res;
};

/* Build a ring of ndesc slots over a pool of npool packets (both >= 2),
 * packets drawn from seed.  Pool packet 1 has a bad checksum and packet 2
 * is not IPv4 (when the pool has them); about 1 in 37 others has a bad
 * checksum and 1 in 53 is ARP.  Returns 0, -EINVAL or -ENOMEM. */
int cb_rx_ring_init(struct cb_rx_ring *r, size_t ndesc, size_t npool, uint64_t seed,
                    int cold);
void cb_rx_ring_free(struct cb_rx_ring *r);

/* Pool size a case uses for mode and cold_bytes. */
size_t cb_rx_pool_size(enum cb_mode mode, size_t cold_bytes);

/* The ring of a set-up case. */
struct cb_rx_ring *cb_rx_case_ring(struct cb_case *c);

extern const struct cb_probe cb_probe_rx_prefetch;

#endif
