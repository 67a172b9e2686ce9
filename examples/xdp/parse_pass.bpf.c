/* parse_pass.bpf.c — an XDP program that parses and passes: Ethernet,
 * IPv4 (header length and checksum-free fields checked), UDP or TCP ports,
 * counted per protocol in a per-CPU array, then XDP_PASS.  What a
 * filter's or a load balancer's fast path does before it decides.
 *
 *   clang -O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch) \
 *       -c parse_pass.bpf.c -o parse_pass.bpf.o
 *   sudo cyclebudget bpf run --xdp parse_pass.bpf.o --frame 64,1518
 *
 * Built with -DEXTRA_PASS it walks the IPv4 header once more (a checksum
 * over it that nothing uses): the planted slowdown bench/bpf.sh has
 * compare find. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 4);   /* other, UDP, TCP, port 9 */
    __type(key, __u32);
    __type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 k)
{
    __u64 *v = bpf_map_lookup_elem(&counts, &k);
    if (v)
        *v += 1;
}

SEC("xdp")
int parse_pass(struct xdp_md *ctx)
{
    void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
    struct ethhdr *eth = data;
    if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP)) {
        count(0);
        return XDP_PASS;
    }
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) > end || ip->ihl != 5 || ip->version != 4)
        return XDP_PASS;
#ifdef EXTRA_PASS
    __u32 sum = 0;
    __u16 *w = (__u16 *)ip;
#pragma unroll
    for (int i = 0; i < 10; i++)
        sum += w[i];
    if (sum == 0x12345)
        count(0);
#endif
    __u16 dport = 0;
    if (ip->protocol == IPPROTO_UDP) {
        struct udphdr *udp = (void *)(ip + 1);
        if ((void *)(udp + 1) > end)
            return XDP_PASS;
        dport = udp->dest;
        count(1);
    } else if (ip->protocol == IPPROTO_TCP) {
        struct tcphdr *tcp = (void *)(ip + 1);
        if ((void *)(tcp + 1) > end)
            return XDP_PASS;
        dport = tcp->dest;
        count(2);
    }
    if (dport == bpf_htons(9))
        count(3);
    return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
