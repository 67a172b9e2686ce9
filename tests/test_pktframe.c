/* test_pktframe.c — the frames bpf run gives an XDP program (pktframe.h),
 * checked against an independent reading: the lengths and fields by
 * offset, and every checksum as the RFC 1071 sum of big-endian 16-bit
 * words (with the pseudo-header for UDP and TCP), which a right checksum
 * makes 0xffff. */
#include <string.h>

#include "harness/pktframe.h"
#include "tap.h"

static unsigned be16(const unsigned char *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

/* The ones'-complement sum of n bytes as big-endian words, from sum. */
static unsigned long sum_be(const unsigned char *p, size_t n, unsigned long sum)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += be16(p + i);
    if (n & 1)
        sum += (unsigned long)p[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

static void check(unsigned frame, enum cb_frame_proto proto)
{
    unsigned char f[CB_FRAME_MAX];
    const char *name = proto == CB_FRAME_TCP ? "TCP" : "UDP";
    int len = cb_frame_build(f, sizeof f, frame, proto);
    is_int(len, (int)frame - 4, "%u B %s: the program sees the frame less its FCS", frame, name);
    is_int((int)be16(f + 12), 0x0800, "... ethertype IPv4");
    is_int(f[14], 0x45, "... IPv4, 20-byte header");
    is_int((int)be16(f + 16), len - 14, "... IP total length = frame - 14 - 4");
    is_int(f[22], 64, "... TTL 64");
    is_int(f[23], proto == CB_FRAME_TCP ? 6 : 17, "... protocol %s", name);
    is_int((int)sum_be(f + 14, 20, 0), 0xffff, "... IPv4 header checksum right");
    unsigned char ph[12];
    memcpy(ph, f + 26, 8);
    ph[8] = 0, ph[9] = f[23];
    ph[10] = (unsigned char)((len - 34) >> 8), ph[11] = (unsigned char)(len - 34);
    unsigned long s = sum_be(f + 34, (size_t)len - 34, sum_be(ph, 12, 0));
    is_int((int)s, 0xffff, "... %s checksum right over the pseudo-header and segment", name);
    is_int((int)be16(f + 36), 9, "... destination port 9");
    is_int(cb_frame_ipv4_check(f, (size_t)len), 1, "... cb_frame_ipv4_check agrees");
    f[22]--;
    is_int(cb_frame_ipv4_check(f, (size_t)len), 0, "... and says wrong when the TTL changes alone");
}

int main(void)
{
    check(64, CB_FRAME_UDP);
    check(1518, CB_FRAME_UDP);
    check(64, CB_FRAME_TCP);
    check(1000, CB_FRAME_TCP);
    unsigned char f[CB_FRAME_MAX];
    is_int(cb_frame_build(f, sizeof f, 63, CB_FRAME_UDP), -22, "63 B: below the minimum frame");
    is_int(cb_frame_build(f, sizeof f, 1519, CB_FRAME_UDP), -22, "1519 B: above the MTU frame");
    is_int(cb_frame_build(f, 100, 1518, CB_FRAME_UDP), -22, "too little room: refused");
    cb_frame_build(f, sizeof f, 64, CB_FRAME_UDP);
    f[13] = 0xdd;
    is_int(cb_frame_ipv4_check(f, 60), -1, "an IPv6 ethertype: not IPv4");
    return tap_done();
}
