/* pktframe.c — test frames for XDP programs (pktframe.h). */
#include "harness/pktframe.h"

#include <errno.h>
#include <string.h>

#include "probes/csum.h"

#define ETH_HLEN 14
#define IP_HLEN 20
#define UDP_HLEN 8
#define TCP_HLEN 20

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

/* A checksum field: the complement of the folded sum, stored in the
 * byte order the sum was taken in (cb_csum_ref pairs bytes low first). */
static void put_csum(unsigned char *field, uint32_t sum)
{
    uint16_t c = (uint16_t)~cb_csum_fold(sum);
    field[0] = (unsigned char)c;
    field[1] = (unsigned char)(c >> 8);
}

int cb_frame_build(unsigned char *buf, size_t room, unsigned frame, enum cb_frame_proto proto)
{
    if (frame < CB_FRAME_MIN || frame > CB_FRAME_MAX || room < frame - CB_FRAME_FCS)
        return -EINVAL;
    size_t len = frame - CB_FRAME_FCS, l4 = proto == CB_FRAME_TCP ? TCP_HLEN : UDP_HLEN;
    size_t ip_len = len - ETH_HLEN, l4_len = ip_len - IP_HLEN;
    static const unsigned char mac[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
    memset(buf, 0, len);
    memcpy(buf, mac, sizeof mac);
    put16(buf + 12, 0x0800);
    unsigned char *ip = buf + ETH_HLEN, *th = ip + IP_HLEN;
    ip[0] = 0x45;
    put16(ip + 2, (unsigned)ip_len);
    put16(ip + 4, 0x1234);
    put16(ip + 6, 0x4000);  /* DF */
    ip[8] = 64;
    ip[9] = proto == CB_FRAME_TCP ? 6 : 17;
    static const unsigned char addrs[8] = {10, 0, 0, 1, 10, 0, 0, 2};
    memcpy(ip + 12, addrs, sizeof addrs);
    put_csum(ip + 10, cb_csum_ref(ip, IP_HLEN, 0));
    put16(th, 4000);
    put16(th + 2, 9);
    if (proto == CB_FRAME_TCP) {
        put16(th + 4, 0x0001), put16(th + 6, 0x0000);  /* seq 65536 */
        th[12] = (TCP_HLEN / 4) << 4;
        th[13] = 0x18;  /* PSH, ACK */
        put16(th + 14, 65535);
    } else {
        put16(th + 4, (unsigned)l4_len);
    }
    for (size_t i = l4; i < l4_len; i++)
        th[i] = (unsigned char)(i * 7 + 1);
    /* The pseudo-header, then the segment over the same sum. */
    unsigned char ph[12];
    memcpy(ph, addrs, 8);
    ph[8] = 0, ph[9] = ip[9];
    put16(ph + 10, (unsigned)l4_len);
    uint32_t sum = cb_csum_ref(th, l4_len, cb_csum_ref(ph, sizeof ph, 0));
    put_csum(th + (proto == CB_FRAME_TCP ? 16 : 6), sum);
    if (proto == CB_FRAME_UDP && th[6] == 0 && th[7] == 0)
        th[6] = th[7] = 0xff;  /* 0 means "no checksum" in UDP */
    return (int)len;
}

int cb_frame_ipv4_check(const unsigned char *buf, size_t len)
{
    if (len < ETH_HLEN + IP_HLEN || buf[12] != 0x08 || buf[13] != 0x00)
        return -1;
    size_t ihl = (size_t)(buf[ETH_HLEN] & 0xf) * 4;
    if ((buf[ETH_HLEN] >> 4) != 4 || ihl < IP_HLEN || ETH_HLEN + ihl > len)
        return -1;
    return cb_csum_fold(cb_csum_ref(buf + ETH_HLEN, ihl, 0)) == 0xffff;
}
