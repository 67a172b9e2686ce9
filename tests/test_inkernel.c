/* test_inkernel.c — the figures of in-kernel runs as others read them
 * (store/inkernel.h): the kernel-context budget takes a run's in-kernel
 * figure for a case, the report the user-space model beside it.  Medians
 * of (value - overhead) / iters, worked out here by hand. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/inkernel.h"
#include "report/report.h"
#include "store/store.h"
#include "tap.h"

/* A complete run with one case of five tsc samples: value = k * 100 + base
 * over 10 iterations, overhead 50; per op (value - 50) / 10. */
static int64_t add_run(struct cb_store *st, const struct cb_host *h, const char *source,
                       const char *variant, double base)
{
    struct cb_run_meta m = {
        .host = h, .tsc_ghz = 2.4, .tsc_source = "cpuid", .core_ghz_source = "", .pmu = "perf",
        .version = "cb_kmod 0123", .compiler = "linux 6.1.0-57-amd64", .cflags = "config sha256 x",
        .commit = "", .subject = "", .commit_date = "", .dirty = -1, .cmdline = "test", .cpu = 0,
        .source = source,
    };
    int64_t run = 0, ev = 0, cs = 0;
    struct cb_event_row e = {.name = "tsc", .part = "tsc", .pfm = "", .encoding = "", .source = "tsc",
                             .read_method = "rdtsc", .supported = 1, .why = ""};
    struct cb_case_row c = {.probe = "csum", .variant = variant, .size = 1500, .unit = "B",
                            .op = "call", .mode = "warm", .bytes_per_op = 1500, .verdict = "ok",
                            .detail = "", .clock_ghz = NAN, .clock_spread_pct = NAN};
    struct cb_sample_row s[5];
    for (int k = 0; k < 5; k++)
        s[k] = (struct cb_sample_row){.seq = k, .iters = 10, .value = base + 100.0 * k,
                                      .overhead = 50, .smt = NAN, .raw = NAN};
    if (cb_store_run_begin(st, &m, &run) < 0 || cb_store_event_add(st, run, &e, &ev) < 0)
        return -1;
    for (int k = 0; k < 5; k++)
        s[k].event_id = ev;
    if (cb_store_case_add(st, run, &c, s, 5, &cs) < 0 || cb_store_run_finish(st, run, "complete") < 0)
        return -1;
    return run;
}

int main(void)
{
    char path[] = "/tmp/cb-test-inkernel.XXXXXX", db[64];
    struct cb_sb err = CB_SB_INIT;
    if (!mkdtemp(path))
        return 1;
    snprintf(db, sizeof db, "%s/s.db", path);
    struct cb_store *st;
    if (cb_store_open(db, CB_STORE_WRITE, 0, &st, &err) < 0) {
        printf("Bail out! %s\n", err.buf);
        cb_sb_release(&err);
        return 1;
    }
    struct cb_host h;
    memset(&h, 0, sizeof h);
    snprintf(h.vendor, sizeof h.vendor, "GenuineIntel");
    snprintf(h.hostname, sizeof h.hostname, "testhost");
    int64_t user_old = add_run(st, &h, NULL, "kernel-2021", 1050);
    int64_t user = add_run(st, &h, NULL, "kernel-2021", 2050);
    int64_t kern = add_run(st, &h, "in-kernel", "csum_partial", 1250);
    ok(user_old > 0 && user > 0 && kern > 0, "three runs stored");

    struct cb_kfigure f;
    /* (1450 - 50) / 10: the middle of 1250..1650 less the overhead. */
    is_int(cb_store_inkernel_figure(st, kern, "csum", "csum_partial", 1500, "warm", &f), 0,
           "the in-kernel figure of csum/csum_partial 1500 warm");
    is_near(f.ticks, 140.0, 1e-9, "... its median ticks per op, the empty batch subtracted");
    ok(isnan(f.cycles), "... no cycles where none were counted (NAN, not 0)");
    is_int((int)f.n, 5, "... over its five samples");
    is_int(cb_store_inkernel_figure(st, kern, "csum", "csum_partial", 64, "warm", &f), -ENOENT,
           "a size the run did not measure: -ENOENT");
    is_int(cb_store_inkernel_figure(st, user, "csum", "kernel-2021", 1500, "warm", &f), -EINVAL,
           "a user-space run is not an in-kernel one: -EINVAL");
    is_int(cb_store_model_figure(st, kern, "csum", "kernel-2021", 1500, "warm", &f), 0,
           "the model beside it");
    is_int((int)f.run_id, (int)user, "... from the newest user-space run");
    is_near(f.ticks, 220.0, 1e-9, "... its median: (2250 - 50) / 10");
    int64_t latest = 0;
    is_int(cb_store_inkernel_latest(st, user, &latest), 0, "the newest in-kernel run of the host");
    is_int((int)latest, (int)kern, "... is the one stored");

    /* The report's side by side, in text and JSON alike: the kernel's 140
     * ticks beside the newest model's 220, error (220 - 140) / 140. */
    struct cb_report r;
    if (ok(cb_report_load(st, kern, &r) == 0, "the in-kernel run's report loads")) {
        char *txt = NULL, *js = NULL;
        size_t tn = 0, jn = 0;
        FILE *f = open_memstream(&txt, &tn);
        cb_report_inkernel_text(&r, f);
        fclose(f);
        f = open_memstream(&js, &jn);
        cb_report_json(&r, 1, f);
        fclose(f);
        ok(strstr(txt, "csum_partial") && strstr(txt, "140.0") && strstr(txt, "220.0") && strstr(txt, "+57%"),
           "text: csum_partial 140.0 beside kernel-2021 220.0, +57%%");
        ok(js && strstr(js, "\"kernel_function\": \"csum_partial\", \"kernel_ticks\": 140, \"model\": "
                            "\"kernel-2021\", \"model_ticks\": 220, \"error_pct\": 57.14285714, "
                            "\"model_run\": 2}") != NULL,
           "JSON's inkernel rows: the same figures, and the model's run");
        free(txt);
        free(js);
        cb_report_free(&r);
    }
    struct cb_report u;
    if (ok(cb_report_load(st, user, &u) == 0, "a user-space run's report loads")) {
        char *js = NULL;
        size_t jn = 0;
        FILE *f = open_memstream(&js, &jn);
        cb_report_json(&u, 1, f);
        fclose(f);
        ok(js && !strstr(js, "\"inkernel\""), "... and its JSON has no inkernel member");
        free(js);
        cb_report_free(&u);
    }
    cb_store_close(st);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", path);
    if (system(cmd) != 0) {
        cb_sb_release(&err);
        return 1;
    }
    cb_sb_release(&err);
    return tap_done();
}
