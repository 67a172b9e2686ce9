/* cb_bpf.bpf.c — the programs `cyclebudget bpf run` brings with it, built
 * with clang -target bpf at build time and embedded in the binary.
 *
 * empty_pass and empty_drop are the floor every case is measured beside:
 * BPF_PROG_TEST_RUN's own cost per run (the loop, the timer checks, the
 * program's entry and exit), with the action that costs least in each
 * mode (XDP_PASS changes nothing in the default mode; in live-frames mode
 * XDP_DROP only recycles the page into the page_pool).
 *
 * csum_diff calls bpf_csum_diff, which is the running kernel's csum_partial
 * over the bytes (to_size up to 512, a multiple of 4): the bytes are this
 * program's .bss, written by user space before the run, so they are warm,
 * and the result is left in .bss for user space to check against the
 * tool's reference. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define CB_BPF_CSUM_MAX 512

/* The whole .bss, one struct, so that user space knows its layout
 * (struct cb_bpf_csum_bss, bpfmeasure.h). */
struct {
    unsigned char buf[CB_BPF_CSUM_MAX];
    __u32 len, pad;
    __s64 result;
} cb_csum;

SEC("xdp")
int empty_pass(struct xdp_md *ctx)
{
    (void)ctx;
    return XDP_PASS;
}

SEC("xdp")
int empty_drop(struct xdp_md *ctx)
{
    (void)ctx;
    return XDP_DROP;
}

SEC("xdp")
int csum_diff(struct xdp_md *ctx)
{
    (void)ctx;
    __u32 len = cb_csum.len;
    if (len > CB_BPF_CSUM_MAX)
        len = CB_BPF_CSUM_MAX;
    cb_csum.result = bpf_csum_diff(0, 0, (__be32 *)cb_csum.buf, len, 0);
    return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
