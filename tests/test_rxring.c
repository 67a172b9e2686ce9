/* test_rxring.c — the "rx_prefetch" family: every variant's counts against
 * the test's own parse of the packets setup wrote. */
#include <stdlib.h>
#include <string.h>

#include "host/cpu.h"
#include "harness/probe.h"
#include "probes/rxring.h"
#include "tap.h"

struct expect {
    uint64_t ok, bad, other, bytes, addr;
};

/* Independent parse: byte-pair RFC 1071 sum including the checksum field. */
static void parse(const unsigned char *eth, unsigned len, struct expect *e)
{
    const unsigned char *ip = eth + 14;
    if (eth[12] != 0x08 || eth[13] != 0x00 || (ip[0] & 0xf0) != 0x40 || (ip[0] & 15) < 5) {
        e->other++;
        return;
    }
    unsigned hl = (ip[0] & 15) * 4u;
    unsigned tot = (unsigned)ip[2] * 256 + ip[3];
    if (tot + 14 > len || tot < hl) {
        e->other++;
        return;
    }
    unsigned long sum = 0;
    for (unsigned k = 0; k < hl; k += 2)
        sum += (unsigned long)ip[k] * 256 + ip[k + 1];
    while (sum > 0xffff)
        sum = (sum & 0xffff) + (sum >> 16);
    if (sum != 0xffff) {
        e->bad++;
        return;
    }
    e->ok++;
    e->bytes += len;
    uint32_t s = 0, d = 0;
    for (int b = 3; b >= 0; b--) {
        s = s << 8 | ip[12 + b];
        d = d << 8 | ip[16 + b];
    }
    e->addr += s ^ d;
}

static void expected(const struct cb_rx_ring *r, uint64_t t0, uint64_t npk, struct expect *e)
{
    memset(e, 0, sizeof *e);
    for (uint64_t t = t0; t < t0 + npk; t++) {
        size_t k = (size_t)(t % r->npool);
        parse(r->pool_data[k], r->pool_len[k], e);
    }
}

static int matches(const struct cb_rx_result *g, uint64_t npk, const struct expect *e)
{
    return g->packets == npk && g->ipv4_ok == e->ok && g->bad_csum == e->bad &&
           g->non_ip == e->other && g->bytes == e->bytes && g->addr_sum == e->addr;
}

static void test_variants(void)
{
    unsigned feat = cb_cpu_features();
    for (size_t vi = 0; vi < cb_probe_rx_prefetch.nvariants; vi++) {
        const struct cb_variant *v = &cb_probe_rx_prefetch.variants[vi];
        if ((v->needs & feat) != v->needs) {
            ok(1, "# SKIP %s: CPU lacks what it needs", v->name);
            continue;
        }
        static const struct {
            size_t ndesc;
            enum cb_mode mode;
        } cases[] = {{256, CB_MODE_WARM}, {1024, CB_MODE_COLD}};
        for (size_t ci = 0; ci < 2; ci++) {
            struct cb_case c = {.probe = &cb_probe_rx_prefetch, .variant = v,
                                .size = cases[ci].ndesc, .mode = cases[ci].mode,
                                .cold_bytes = 1 << 20};
            if (cb_probe_rx_prefetch.setup(&c)) {
                ok(0, "%s setup", v->name);
                continue;
            }
            const struct cb_rx_ring *r = cb_rx_case_ring(&c);
            uint64_t total = r->npool + 2 * (uint64_t)r->ndesc + 5;
            uint64_t done = 0;
            for (uint64_t step = 7; done < total; step = step * 2 + 3) {
                uint64_t k = step < total - done ? step : total - done;
                cb_probe_rx_prefetch.run(&c, k);
                done += k;
            }
            struct expect e;
            expected(r, 0, total, &e);
            ok(matches(&r->res, total, &e),
               "%s %s ring %zu pool %zu: %llu packets, %llu ok / %llu bad / %llu other as parsed "
               "by the test",
               v->name, c.mode == CB_MODE_COLD ? "cold" : "warm", r->ndesc, r->npool, (unsigned long long)total,
               (unsigned long long)e.ok, (unsigned long long)e.bad, (unsigned long long)e.other);
            cb_probe_rx_prefetch.teardown(&c);
        }
    }
}

static const struct cb_variant *variant(const char *name)
{
    for (size_t i = 0; i < cb_probe_rx_prefetch.nvariants; i++)
        if (strcmp(cb_probe_rx_prefetch.variants[i].name, name) == 0)
            return &cb_probe_rx_prefetch.variants[i];
    return NULL;
}

static void test_planted_and_tampered(void)
{
    struct cb_case c = {.probe = &cb_probe_rx_prefetch, .variant = variant("pf-1+2+5"),
                        .size = 512, .mode = CB_MODE_COLD, .cold_bytes = 1 << 20};
    if (!c.variant || cb_probe_rx_prefetch.setup(&c)) {
        ok(0, "setup for the planted-packet test");
        return;
    }
    struct cb_rx_ring *r = cb_rx_case_ring(&c);
    struct expect e;
    expected(r, 0, r->npool, &e);
    ok(r->planted_bad_csum > 2 && r->planted_non_ip > 2, "setup planted %zu bad checksums, %zu "
       "non-IP packets in a pool of %zu", r->planted_bad_csum, r->planted_non_ip, r->npool);
    is_uint(e.bad, r->planted_bad_csum, "the test's own parse finds every planted bad checksum");
    cb_probe_rx_prefetch.run(&c, r->npool);
    is_uint(r->res.bad_csum, r->planted_bad_csum, "one pool pass: the loop catches them all");
    is_uint(r->res.non_ip, r->planted_non_ip, "one pool pass: and every non-IP packet");
    is_uint(r->res.ipv4_ok, r->npool - r->planted_bad_csum - r->planted_non_ip,
            "and passes every other packet");

    /* run(c, 0) changes nothing. */
    struct cb_rx_result before = r->res;
    size_t next = r->next, cur = r->pool_cur;
    cb_probe_rx_prefetch.run(&c, 0);
    ok(memcmp(&before, &r->res, sizeof before) == 0 && r->next == next && r->pool_cur == cur,
       "run(c, 0) does nothing");

    /* Tamper with two valid packets: one TTL changed without fixing the
     * checksum (must turn bad), one with the checksum fixed (must stay ok). */
    size_t k1 = 0, k2 = 0;
    for (size_t k = 3; k < r->npool && (!k1 || !k2); k++) {
        struct expect one = {0};
        parse(r->pool_data[k], r->pool_len[k], &one);
        if (one.ok && !k1)
            k1 = k;
        else if (one.ok && !k2)
            k2 = k;
    }
    unsigned char *ip1 = r->pool_data[k1] + 14, *ip2 = r->pool_data[k2] + 14;
    ip1[8] ^= 0x10;
    ip2[8] ^= 0x10;
    /* Re-checksum the second one from scratch. */
    ip2[10] = ip2[11] = 0;
    unsigned long sum = 0;
    for (unsigned k = 0; k < (ip2[0] & 15u) * 4; k += 2)
        sum += (unsigned long)ip2[k] * 256 + ip2[k + 1];
    while (sum > 0xffff)
        sum = (sum & 0xffff) + (sum >> 16);
    ip2[10] = (unsigned char)(~sum >> 8);
    ip2[11] = (unsigned char)~sum;
    struct expect e2;
    expected(r, 0, r->npool, &e2);
    is_uint(e2.bad, r->planted_bad_csum + 1, "test parse: tampered packet is bad, fixed one is ok");
    /* Pool packets come round every npool packets; the loop has done
     * npool so far, so the next npool are one more full pass. */
    struct cb_rx_result b0 = r->res;
    cb_probe_rx_prefetch.run(&c, r->npool);
    is_uint(r->res.bad_csum - b0.bad_csum, r->planted_bad_csum + 1,
            "the loop sees exactly one more bad checksum");
    is_uint(r->res.ipv4_ok - b0.ipv4_ok, e2.ok, "and the re-checksummed packet still passes");

    /* Memory order is shuffled; skb->data is where the pool says. */
    size_t desc = 0, right = 0;
    for (size_t k = 0; k + 1 < r->npool; k++) {
        desc += r->pool_data[k + 1] < r->pool_data[k];
        right += r->pool_skb[k]->data == r->pool_data[k] &&
                 (uintptr_t)r->pool_data[k] % 64 == CB_RX_NET_IP_ALIGN;
    }
    ok(desc > r->npool / 4 && desc < 3 * r->npool / 4,
       "buffers in shuffled order (%zu of %zu steps go down)", desc, r->npool - 1);
    is_uint(right, r->npool - 1, "every skb->data is its pool buffer, 2 bytes past a line");
    cb_probe_rx_prefetch.teardown(&c);
}

static void test_verify_all(void)
{
    for (size_t i = 0; i < cb_probe_rx_prefetch.nvariants; i++) {
        const struct cb_variant *v = &cb_probe_rx_prefetch.variants[i];
        struct cb_verdict vd;
        int rc = cb_probe_rx_prefetch.verify(v, &vd);
        ok(rc == 0 && vd.ok && vd.checked > 0, "verify %s%s%s", v->name, vd.ok ? "" : ": ",
           vd.ok ? "" : vd.detail);
    }
}

int main(void)
{
    size_t names = 0;
    for (size_t i = 0; i < cb_probe_rx_prefetch.nvariants; i++)
        for (size_t j = i + 1; j < cb_probe_rx_prefetch.nvariants; j++)
            names += strcmp(cb_probe_rx_prefetch.variants[i].name,
                            cb_probe_rx_prefetch.variants[j].name) == 0;
    is_uint(names, 0, "variant names are unique");
    ok(variant("none") && variant("pf-1+2+5") && variant("pf-1+2+3+4+5") && variant("pf-4+5"),
       "the 2005 combinations are there");
    test_planted_and_tampered();
    test_variants();
    test_verify_all();
    return tap_done();
}
