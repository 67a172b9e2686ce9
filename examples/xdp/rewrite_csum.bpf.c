/* rewrite_csum.bpf.c — an XDP program that parses, rewrites and sends back
 * with the checksums right: the MAC addresses swapped, the destination
 * IPv4 address translated (10.0.0.2 -> 10.0.0.3, as a NAT or a load
 * balancer would), the TTL decremented, the IPv4 header checksum computed
 * again over the header with bpf_csum_diff (the kernel's csum_partial) and
 * the UDP or TCP checksum updated for the address (RFC 1624), then
 * XDP_TX.  bpf run checks the frame it hands back: its IPv4 header
 * checksum must be right.
 *
 *   clang -O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch) \
 *       -c rewrite_csum.bpf.c -o rewrite_csum.bpf.o
 *   sudo cyclebudget bpf run --xdp rewrite_csum.bpf.o --expect tx */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define NEW_DADDR 0x0a000003   /* 10.0.0.3 */

static __always_inline __u16 fold(__u64 s)
{
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return (__u16)s;
}

/* RFC 1624: HC' = ~(~HC + ~m + m') for a 32-bit field changed m -> m'. */
static __always_inline __u16 csum_replace4(__u16 check, __u32 from, __u32 to)
{
    __u64 s = (__u16)~check;
    s += (~from & 0xffff) + (~from >> 16);
    s += (to & 0xffff) + (to >> 16);
    return (__u16)~fold(s);
}

SEC("xdp")
int rewrite_csum(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
        return XDP_PASS;
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) > end || ip->ihl != 5 || ip->ttl <= 1)
        return XDP_PASS;
    __u32 old = ip->daddr, new = bpf_htonl(NEW_DADDR);
    if (ip->protocol == IPPROTO_UDP) {
        struct udphdr *udp = (void *)(ip + 1);
        if ((void *)(udp + 1) > end)
            return XDP_PASS;
        if (udp->check)
            udp->check = csum_replace4(udp->check, old, new) ?: 0xffff;
    } else if (ip->protocol == IPPROTO_TCP) {
        struct tcphdr *tcp = (void *)(ip + 1);
        if ((void *)(tcp + 1) > end)
            return XDP_PASS;
        tcp->check = csum_replace4(tcp->check, old, new);
    } else {
        return XDP_PASS;
    }
    unsigned char mac[ETH_ALEN];
    __builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
    __builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
    __builtin_memcpy(eth->h_source, mac, ETH_ALEN);
    ip->daddr = new;
    ip->ttl--;
    ip->check = 0;
    __s64 s = bpf_csum_diff(0, 0, (__be32 *)ip, sizeof *ip, 0);
    if (s < 0)
        return XDP_ABORTED;
    ip->check = (__u16)~fold((__u64)s);
    return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
