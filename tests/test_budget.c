/* test_budget.c — budget arithmetic against REFERENCE.md's table and the
 * 2016 thread's "201 cycles at 3 GHz". */
#include <string.h>

#include "budget.h"
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
    char err[256];
    is_int(cb_budget_parse("10G", 64, &b, err, sizeof err), 0, "parse 10G");
    is_near(cb_budget_cycles(&b, 3.0), 201.6, 1e-9, "10G/64B at 3 GHz is 201.6 cycles");
    is_near(cb_budget_cycles(&b, 2.0), 134.4, 1e-9, "10G/64B at 2 GHz is 134.4 cycles");
    is_int(cb_budget_parse("100g", 64, &b, err, sizeof err), 0, "parse 100g (case-insensitive)");
    is_near(cb_budget_cycles(&b, 3.0), 20.16, 1e-9, "100G at 3 GHz is 20.16 cycles");
    is_int(cb_budget_parse("2.5G", 64, &b, err, sizeof err), 0, "parse 2.5G");
    is_near(b.gbps, 2.5, 0, "2.5G is 2.5 Gbit/s");
    is_int(cb_budget_parse("201", 64, &b, err, sizeof err), 0, "parse a cycle count");
    is_near(cb_budget_cycles(&b, 3.0), 201, 0, "a cycle budget ignores the clock");
    is_int(cb_budget_parse("150cycles", 64, &b, err, sizeof err), 0, "parse 150cycles");
    is_near(b.cycles, 150, 0, "150cycles is 150 cycles");

    is_int(cb_budget_parse("10X", 64, &b, err, sizeof err), -22, "10X is rejected");
    ok(strstr(err, "10X") != NULL, "the message names the bad budget: %s", err);
    is_int(cb_budget_parse("", 64, &b, err, sizeof err), -22, "empty budget is rejected");
    is_int(cb_budget_parse("-10G", 64, &b, err, sizeof err), -22, "negative link is rejected");
    is_int(cb_budget_parse("0", 64, &b, err, sizeof err), -22, "zero budget is rejected");
    is_int(cb_budget_parse("1e99", 64, &b, err, sizeof err), -22, "1e99 is rejected");
    is_int(cb_budget_parse("nan", 64, &b, err, sizeof err), -22, "nan is rejected");
    is_int(cb_budget_parse("10G", 40, &b, err, sizeof err), -22, "a 40-byte frame is rejected");
    return tap_done();
}
