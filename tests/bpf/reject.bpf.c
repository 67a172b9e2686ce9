/* reject.bpf.c — an XDP program the verifier must reject: it reads the
 * packet without checking it against data_end.  tests/bpf.test has bpf run
 * refuse it, with the end of the verifier's log. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int unchecked(struct xdp_md *ctx)
{
    unsigned char *p = (unsigned char *)(long)ctx->data;
    return p[20] == 6 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
