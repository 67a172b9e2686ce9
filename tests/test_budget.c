/* test_budget.c — budget arithmetic against REFERENCE.md's table and the
 * 2016 thread's "201 cycles at 3 GHz". */
#include <math.h>
#include <string.h>

#include "analysis/budget.h"
#include "tap.h"

int main(void)
{
    /* 10 Gbit/s, 64-byte frames + 20 bytes of preamble and gap = 672 bits. */
    is_near(cb_budget_pps(10, 64), 10e9 / 672.0, 1e-6, "10G/64B packets per second");
    is_near(cb_budget_pps(10, 64), 14880952.38, 0.01, "10G/64B is 14.88 Mpps");
    is_near(cb_budget_ns(10, 64), 67.2, 1e-9, "10G/64B is 67.2 ns per packet");
    is_near(cb_budget_ns(25, 64), 26.88, 1e-9, "25G/64B is 26.88 ns");
    is_near(cb_budget_ns(40, 64), 16.8, 1e-9, "40G/64B is 16.8 ns");
    is_near(cb_budget_ns(100, 64), 6.72, 1e-9, "100G/64B is 6.72 ns");
    is_near(cb_budget_pps(10, 1518), 812743.8, 0.1, "10G/1518B (1538 on the wire) is 812,744 pps");
    is_near(cb_budget_ns(10, 1518), 1230.4, 1e-9, "10G/1518B is 1230.4 ns");

    struct cb_budget b;
    struct cb_sb err = CB_SB_INIT;
    is_int(cb_budget_parse("10G", 64, &b, &err), 0, "parse 10G");
    is_near(cb_budget_cycles(&b, 3.0), 201.6, 1e-9, "10G/64B at 3 GHz is 201.6 cycles");
    is_near(cb_budget_cycles(&b, 2.0), 134.4, 1e-9, "10G/64B at 2 GHz is 134.4 cycles");
    is_int(cb_budget_parse("100g", 64, &b, &err), 0, "parse 100g (case-insensitive)");
    is_near(cb_budget_cycles(&b, 3.0), 20.16, 1e-9, "100G at 3 GHz is 20.16 cycles");
    is_int(cb_budget_parse("2.5G", 64, &b, &err), 0, "parse 2.5G");
    is_near(b.gbps, 2.5, 0, "2.5G is 2.5 Gbit/s");
    is_int(cb_budget_parse("201", 64, &b, &err), 0, "parse a cycle count");
    is_near(cb_budget_cycles(&b, 3.0), 201, 0, "a cycle budget ignores the clock");
    is_int(cb_budget_parse("150cycles", 64, &b, &err), 0, "parse 150cycles");
    is_near(b.cycles, 150, 0, "150cycles is 150 cycles");

    is_int(cb_budget_parse("10X", 64, &b, &err), -22, "10X is rejected");
    ok(strstr(err.buf, "10X") != NULL, "the message names the bad budget: %s", err.buf);
    is_int(cb_budget_parse("", 64, &b, &err), -22, "empty budget is rejected");
    is_int(cb_budget_parse("-10G", 64, &b, &err), -22, "negative link is rejected");
    is_int(cb_budget_parse("0", 64, &b, &err), -22, "zero budget is rejected");
    is_int(cb_budget_parse("1e99", 64, &b, &err), -22, "1e99 is rejected");
    is_int(cb_budget_parse("nan", 64, &b, &err), -22, "nan is rejected");
    is_int(cb_budget_parse("10G", 40, &b, &err), -22, "a 40-byte frame is rejected");
    is_int(cb_budget_parse("10G", 16385, &b, &err), -22, "a frame over 16384 is rejected");

    /* The one rule (issue 41), against the wire arithmetic done here. */
    struct cb_charge ch;
    cb_budget_charge("slab", "B", 256, 64, &ch);
    ok(ch.kind == CB_CHARGE_PACKET && ch.frame == 64 && ch.frames == 1, "an skb alloc is per packet");
    is_near(cb_budget_charge_ns(&ch, 10), 67.2, 1e-9, "... 67.2 ns at 10G");
    cb_budget_charge("memset", "B", 192, 64, &ch);
    ok(ch.kind == CB_CHARGE_PACKET && ch.frame == 64, "an skb head clear is per packet");
    cb_budget_charge("rx_prefetch", "desc", 1024, 1500, &ch);
    ok(ch.kind == CB_CHARGE_PACKET && ch.frame == 1500, "a descriptor is per packet, at --frame 1500");
    cb_budget_charge("csum", "B", 1500, 64, &ch);
    ok(ch.kind == CB_CHARGE_BYTES && ch.frame == 1518 && ch.frames == 1, "csum 1500 B: one 1518-byte frame");
    is_near(cb_budget_charge_ns(&ch, 10), 1538 * 8 / 10.0, 1e-9, "... 1230.4 ns at 10G");
    cb_budget_charge("csum", "B", 64, 64, &ch);
    is_int((int)ch.frame, 82, "csum 64 B: the 82-byte frame that carries it");
    cb_budget_charge("csum", "B", 20, 64, &ch);
    is_int((int)ch.frame, 64, "csum 20 B: fits the 64-byte frame");
    cb_budget_charge("copy", "B", 64, 1500, &ch);
    is_int((int)ch.frame, 1500, "copy 64 B at --frame 1500: the chosen frame carries it");
    cb_budget_charge("csum", "B", 65536, 64, &ch);
    /* (65536 - 40) / 1460 = 44.86: 45 segments of 1518 bytes. */
    ok(ch.kind == CB_CHARGE_MTU && ch.frames == 45 && ch.frame == 1518, "csum 64 KiB: 45 MTU frames");
    is_near(ch.wire_bytes, 45 * 1538.0, 1e-9, "... 69210 bytes on the wire");
    cb_budget_charge("csum", "B", 1501, 64, &ch);
    is_int((int)ch.frames, 2, "1501 B: just over an MTU, two frames");
    cb_budget_charge("memset", "B", 16 << 20, 64, &ch);
    ok(ch.kind == CB_CHARGE_MTU && ch.frames == (16777216 - 40 + 1459) / 1460, "memset 16 MiB: MTU frames");
    cb_budget_charge("slab", "B", 4096, 64, &ch);
    ok(ch.kind == CB_CHARGE_PACKET, "a 4 KiB slab object is still one per packet");
    /* A share: ns over the charged frames' time; a cycle budget scales by
     * wire bytes. */
    cb_budget_parse("10G", 64, &b, &err);
    cb_budget_charge("csum", "B", 1500, 64, &ch);
    is_near(cb_budget_share(&b, &ch, 123.04, NAN), 0.1, 1e-12, "123.04 ns of a 1230.4 ns frame is 10 percent");
    cb_budget_parse("201", 64, &b, &err);
    is_near(cb_budget_share(&b, &ch, NAN, 201 * 1538 / 84.0), 1.0, 1e-12,
            "a cycle budget per 64-byte frame, scaled to the 1538 wire bytes");
    enum cb_context cx;
    is_int(cb_context_parse("kernel", &cx, &err), 0, "context kernel parses");
    is_int(cx, CB_CONTEXT_KERNEL, "... as kernel");
    is_int(cb_context_parse("ring0", &cx, &err), -22, "context ring0 is refused");
    cb_sb_release(&err);
    return tap_done();
}
