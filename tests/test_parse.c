/* test_parse.c — command-line values: good ones parse to the right number,
 * bad ones are refused whole with a message naming them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parse.h"
#include "tap.h"

int main(void)
{
    uint64_t v;
    struct cb_sb err = CB_SB_INIT;
    static const struct {
        const char *in;
        uint64_t want;
    } good[] = {
        {"64", 64},          {"1500", 1500},   {"4K", 4096},           {"4k", 4096},
        {"4KiB", 4096},      {"4KB", 4096},    {"1M", 1048576},        {"4MiB", 4194304},
        {"1G", 1073741824},  {"16G", 17179869184ull}, {"1b", 1},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int rc = cb_parse_size(good[i].in, &v, &err);
        ok(rc == 0 && v == good[i].want, "size '%s' is %llu", good[i].in,
           (unsigned long long)good[i].want);
    }
    static const char *bad[] = {"0", "-1", "1e99", "4Q", "", "1.5K", "K", " 64", "64 ", "0x40",
                                "17G", "99999999999999999999", "4KK", "+4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cb_sb_reset(&err);
        int rc = cb_parse_size(bad[i], &v, &err);
        ok(rc < 0 && err.buf[0], "size '%s' is refused (%s)", bad[i], err.buf);
    }
    cb_parse_size("4Q", &v, &err);
    ok(strstr(err.buf, "4Q") && strstr(err.buf, "unit"), "4Q's message names the token and the unit");

    uint64_t list[8];
    is_int(cb_parse_size_list("20,40,64,1500,4K", list, 8, &err), 5, "a list of 5 sizes");
    ok(list[0] == 20 && list[4] == 4096, "list values in order");
    ok(cb_parse_size_list("20,,64", list, 8, &err) < 0, "empty entry refused");
    ok(cb_parse_size_list("20,", list, 8, &err) < 0, "trailing comma refused");
    ok(cb_parse_size_list("", list, 8, &err) < 0, "empty list refused");
    ok(cb_parse_size_list("1,2,3", list, 2, &err) == -E2BIG, "too many sizes refused");
    ok(cb_parse_size_list("64,4Q", list, 8, &err) < 0, "one bad size refuses the list");

    ok(cb_parse_cold_bytes("8M", &v, &err) == 0 && v == 8u << 20, "--cold-bytes 8M");
    ok(cb_parse_cold_bytes("512K", &v, &err) < 0 && strstr(err.buf, "too small"),
       "--cold-bytes under 1M is refused: %s", err.buf);
    ok(cb_parse_cold_bytes("4Q", &v, &err) < 0, "--cold-bytes 4Q is refused");

    long l;
    is_int(cb_parse_long("7", 1, 10, "--reps", &l, &err), 0, "7 in [1,10]");
    is_int(l, 7, "value 7");
    ok(cb_parse_long("0", 1, 10, "--reps", &l, &err) < 0, "0 below range refused");
    ok(strstr(err.buf, "--reps") != NULL, "message names the option: %s", err.buf);
    ok(cb_parse_long("11", 1, 10, "--reps", &l, &err) < 0, "11 above range refused");
    ok(cb_parse_long("5x", 1, 10, "--reps", &l, &err) < 0, "5x refused");
    ok(cb_parse_long("", 1, 10, "--reps", &l, &err) < 0, "empty refused");
    ok(cb_parse_long("99999999999999999999", 1, 10, "--reps", &l, &err) < 0,
       "overflow refused");

    int iv = -1;
    is_int(cb_parse_int("7", 1, 10, "--rounds", &iv, &err), 0, "int 7 in range");
    is_int(iv, 7, "int 7 parsed");
    ok(cb_parse_int("11", 1, 10, "--rounds", &iv, &err) < 0 && iv == 7,
       "int 11 above range refused, value untouched");

    double d;
    is_int(cb_parse_percent("2", "--min-change", &d, &err), 0, "percent 2");
    is_near(d, 0.02, 1e-15, "2 is 0.02");
    is_int(cb_parse_percent("2.5%", "--min-change", &d, &err), 0, "percent 2.5%%");
    is_near(d, 0.025, 1e-15, "2.5%% is 0.025");
    is_int(cb_parse_percent("0", "--min-change", &d, &err), 0, "percent 0 allowed");
    is_near(d, 0, 0, "0 is 0");
    static const char *const badpct[] = {"", "%", "-1", "101", "1e1", " 2", "2%%", "0x2", "two"};
    for (size_t i = 0; i < sizeof badpct / sizeof badpct[0]; i++)
        ok(cb_parse_percent(badpct[i], "--min-change", &d, &err) < 0 &&
               strstr(err.buf, "--min-change"),
           "percent '%s' refused (%s)", badpct[i], err.buf);
    is_int(cb_parse_seconds("0.5", "--max-time", &d, &err), 0, "0.5 seconds");
    is_near(d, 0.5, 0, "0.5 parsed");
    ok(cb_parse_seconds("0", "--max-time", &d, &err) < 0, "0 seconds refused");
    ok(cb_parse_seconds("inf", "--max-time", &d, &err) < 0, "inf refused");
    ok(cb_parse_seconds("1e99", "--max-time", &d, &err) < 0, "1e99 refused");

    char **names, *store;
    is_int(cb_parse_name_list("csum,copy", "--probes", &names, &store, &err), 2,
           "two names");
    is_str(names[0], "csum", "first name");
    is_str(names[1], "copy", "second name");
    ok(names[2] == NULL, "NULL-terminated");
    free(names);
    free(store);
    ok(cb_parse_name_list("", "--probes", &names, &store, &err) < 0, "empty list refused");
    ok(cb_parse_name_list("a,,b", "--probes", &names, &store, &err) < 0,
       "empty name refused");

    is_int(cb_edit_distance("kitten", "sitting"), 3, "kitten -> sitting is 3 edits");
    is_int(cb_edit_distance("csum", "csum"), 0, "identical strings");
    is_int(cb_edit_distance("", "abc"), 3, "from empty");
    is_int(cb_edit_distance("cylces", "cycles"), 2, "a swap is two edits");
    cb_sb_release(&err);
    return tap_done();
}
