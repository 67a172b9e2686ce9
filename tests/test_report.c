/* test_report.c — the report model and its writers.
 *
 * A store is written through the store API with samples whose per-op values
 * are known, read back with cb_report_load, and checked against values
 * worked out here by hand; then the escaping of outside text (HTML, JSON,
 * CSV) is checked on hostile strings, and the embedded assets are present. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/assets.h"
#include "analysis/budget.h"
#include "report/report.h"
#include "store/store.h"
#include "util/strbuf.h"
#include "tap.h"

static char *capture_html(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cb_html_esc(f, s);
    fclose(f);
    return buf;
}

static char *capture_json(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cb_json_str(f, s);
    fclose(f);
    return buf;
}

static void escapes(void)
{
    char *h = capture_html("<script>alert(\"x\" & 'y')</script>");
    is_str(h, "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;",
           "HTML escaping of a script tag, quotes and ampersand");
    free(h);
    h = capture_html("a\x01" "b");
    is_str(h, "a&#xFFFD;b", "control characters become U+FFFD in HTML");
    free(h);
    char *j = capture_json("q\"b\\n\nt\t\x02</script>");
    is_str(j, "\"q\\\"b\\\\n\\nt\\t\\u0002<\\/script>\"", "JSON string escaping");
    free(j);
    j = capture_json("/x");
    is_str(j, "\"/x\"", "a leading slash is left alone");
    free(j);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cb_json_num(f, NAN);
    fputc(' ', f);
    cb_json_num(f, INFINITY);
    fputc(' ', f);
    cb_json_num(f, 1.5);
    fclose(f);
    is_str(buf, "null null 1.5", "JSON numbers: NaN and infinity are null");
    free(buf);
}

/* The one UTF-8 walk (issue 43, 4): controls and bad bytes as \xNN, or bad
 * bytes as U+FFFD; nothing cut, however long (it wrote into buf[4096]). */
static void text_walk(void)
{
    struct cb_sb sb = CB_SB_INIT;
    cb_esc_add(&sb, "\x1b[31mred\x1b]0;x\x07 \xc2\x9b \xff\xfe ok\tend\nnext\x7f", CB_ESC_CTRL);
    is_str(sb.buf, "\\x1b[31mred\\x1b]0;x\\x07 \\xc2\\x9b \\xff\\xfe ok\tend\\nnext\\x7f",
           "text: ESC, BEL, a C1 CSI, bad bytes and DEL as \\xNN, a line break as \\n, tab kept");
    cb_sb_reset(&sb);
    cb_esc_add(&sb, "a\nb\x1b\xff\xc3\xa9", CB_ESC_FFFD | CB_ESC_CTRL | CB_ESC_KEEP_NL);
    is_str(sb.buf, "a\nb\\x1b\xef\xbf\xbd\xc3\xa9", "CSV: the line break kept, ESC \\x1b, a bad byte U+FFFD, e-acute kept");
    cb_sb_reset(&sb);
    cb_esc_add(&sb, "\x01\xff", CB_ESC_FFFD);
    is_str(sb.buf, "\x01\xef\xbf\xbd", "UTF-8 only: controls left, a bad byte U+FFFD");
    cb_sb_reset(&sb);
    char *long_tag = malloc(10001);
    memset(long_tag, 'x', 10000);
    long_tag[0] = '\x1b';
    long_tag[10000] = '\0';
    cb_esc_add(&sb, long_tag, CB_ESC_CTRL);
    is_int((long)sb.len, 10003L, "a 10000-byte tag is written whole (ESC as 4 bytes)");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cb_text_puts(f, long_tag);
    fclose(f);
    is_int((long)len, 10003L, "cb_text_puts writes it whole too");
    char cut[8];
    cb_text_clean(cut, sizeof cut, "ab\xc3\xa9\xc3\xa9\xc3\xa9");
    is_str(cut, "ab\xc3\xa9\xc3\xa9", "a fixed buffer is cut between characters, never inside one");
    free(buf);
    free(long_tag);
    cb_sb_release(&sb);
}

static void assets(void)
{
    const char *t = cb_asset_find("report.html.in");
    ok(t && strstr(t, "@@BODY@@") && strstr(t, "@@STYLE@@") && strstr(t, "@@SCRIPT@@"),
       "the page template is embedded with its markers");
    ok(t && strstr(t, "Content-Security-Policy") && strstr(t, "default-src 'none'"),
       "the template forbids every fetch");
    ok(cb_asset_find("report.css") != NULL, "the style sheet is embedded");
    ok(cb_asset_find("report.js") != NULL, "the script is embedded");
    ok(cb_asset_find("nope.txt") == NULL, "an unknown asset is NULL");
}

static void model(void)
{
    char dir[] = "/tmp/test_report.XXXXXX", path[128];
    struct cb_sb err = CB_SB_INIT;
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/r.db", dir);
    struct cb_store *st;
    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "open store");
    struct cb_host h;
    memset(&h, 0, sizeof h);
    snprintf(h.vendor, sizeof h.vendor, "GenuineIntel");
    snprintf(h.model_name, sizeof h.model_name, "Test <CPU>");
    snprintf(h.hostname, sizeof h.hostname, "box");
    snprintf(h.kernel, sizeof h.kernel, "6.1");
    h.ncpus = 4;
    struct cb_run_meta m = {
        .host = &h, .tsc_ghz = 2.0, .tsc_source = "sysfs", .core_ghz = 3.0,
        .core_ghz_spread = 1.0, .core_ghz_source = "estimate", .pmu = "perf",
        .version = "0.1.0", .compiler = "gcc", .cflags = "-O2", .commit = "",
        .subject = "", .commit_date = "", .dirty = -1, .cmdline = "cyclebudget run",
        .tag = "t,\"q\"", .cpu = 0,
    };
    int64_t run, ev_tsc, ev_est, ev_cyc, case_id;
    is_int(cb_store_run_begin(st, &m, &run), 0, "run begins");
    struct cb_event_row tsc = {"tsc", "tsc", "", "", "tsc", "rdtsc", 1, ""};
    struct cb_event_row est = {"cycles-est", "cycles-est", "", "", "estimate", "derived", 1, ""};
    struct cb_event_row cyc = {"cycles", "cycles", "perf::CYCLES", "", "pmu", "none", 0, "no PMU"};
    cb_store_event_add(st, run, &tsc, &ev_tsc);
    cb_store_event_add(st, run, &est, &ev_est);
    cb_store_event_add(st, run, &cyc, &ev_cyc);
    /* Per-op estimate values: (v - 100) / iters = 10, 30, 20, 40, 50 -> median 30,
     * p25 20, p75 40 (type 7); tsc values: (v - 50) / iters = 5, 6, 7, 8, 9. */
    struct cb_case_row c = {"csum", "x,y", 1500, "B", "call", "warm", 1500, "ok", "", 0, 0, 0, NULL, NULL, 0, 0, NULL, 0, NULL, -1};
    struct cb_sample_row s[15];
    const double est_v[5] = {10, 30, 20, 40, 50}, tsc_v[5] = {5, 6, 7, 8, 9};
    for (int i = 0; i < 5; i++) {
        uint64_t it = 10 * (uint64_t)(i + 1);
        s[3 * i] = (struct cb_sample_row){i, it, ev_est, est_v[i] * (double)it + 100, 100, 0, 0, 0, NAN, 0, NAN, NULL};
        s[3 * i + 1] = (struct cb_sample_row){i, it, ev_tsc, tsc_v[i] * (double)it + 50, 50, 0, 0, 0, NAN, 0, NAN, NULL};
        s[3 * i + 2] = (struct cb_sample_row){i, it, ev_cyc, NAN, NAN, 0, 0, 0, NAN, 0, NAN, NULL};
    }
    is_int(cb_store_case_add(st, run, &c, s, 15, &case_id), 0, "case stored");
    struct cb_case_row bad = {"csum", "broken", 1500, "B", "call", "warm", 1500, "bad",
                              "len 3: got 0x1 want 0x2", 0, 0, 0, NULL, NULL, 0, 0, NULL, 0, NULL, -1};
    int64_t bad_id;
    is_int(cb_store_case_add(st, run, &bad, NULL, 0, &bad_id), 0, "bad case stored");
    cb_store_run_finish(st, run, "complete");
    cb_store_close(st);

    is_int(cb_store_open(path, CB_STORE_READ, 0, &st, &err), 0, "reopen to read");
    struct cb_report r;
    is_int(cb_report_load(st, run, &r), 0, "report loads");
    is_str(r.cyc_source, "estimate", "no PMU cycles: the estimate is used");
    is_uint(r.ncases, 2, "two cases");
    const struct cb_report_case *k = &r.cases[0];
    ok(k->measured, "the ok case is measured");
    ok(!r.cases[1].measured, "the bad case is not");
    is_near(k->cyc.median, 30, 1e-9, "median of (value - overhead) / iters");
    is_near(k->cyc.p25, 20, 1e-9, "p25");
    is_near(k->cyc.p75, 40, 1e-9, "p75");
    is_near(k->ns_per_op, 7.0 / 2.0, 1e-9, "ns/op = median TSC ticks / TSC GHz");
    is_near(cb_report_bpc(k), 1500.0 / 30, 1e-9, "bytes per cycle");
    is_uint(k->ev[r.cyc_event].n, 5, "five samples of the cycle event");
    is_near(k->ev[r.cyc_event].v[1], 30, 1e-9, "samples keep their order");
    is_uint(k->ev[r.cyc_event].iters[4], 50, "and their iteration counts");
    is_uint(k->ev[2].n, 0, "the unsupported event has no samples");
    ok(isnan(k->ev_median[2]), "and no median (not zero)");
    is_near(cb_report_budget_cycles(&r, 10), 67.2 * 3.0, 1e-9, "10G budget at 3 GHz");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cb_report_csv(&r, 1, 0, f);
    fclose(f);
    ok(strstr(buf, ",\"t,\"\"q\"\"\",") != NULL, "CSV quotes a tag with a comma and quotes");
    ok(strstr(buf, ",\"x,y\",1500,B,warm,call,1500,ok,estimate,5,30,") != NULL,
       "CSV case row: quoted variant, n and median");
    int lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    is_int(lines, 3, "CSV: header and one row per case");
    free(buf);

    f = open_memstream(&buf, &len);
    cb_report_csv(&r, 1, 1, f);
    fclose(f);
    lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    is_int(lines, 11, "CSV samples: header and 5 x 2 supported-event rows");
    free(buf);

    struct cb_budget b;
    cb_budget_parse("10G", 64, &b, &err);
    f = open_memstream(&buf, &len);
    cb_report_html(&r, 1, &b, f);
    fclose(f);
    ok(strstr(buf, "Test &lt;CPU&gt;") && !strstr(buf, "Test <CPU>"), "the CPU name is escaped in HTML");
    ok(strstr(buf, "len 3: got 0x1 want 0x2") != NULL, "the BAD case's detail is shown");
    ok(strstr(buf, "@@") == NULL, "every template marker was replaced");
    free(buf);

    f = open_memstream(&buf, &len);
    cb_report_gbench(&r, 1, f);
    fclose(f);
    ok(strstr(buf, "\"name\": \"csum/x,y/1500/warm\"") != NULL, "gbench name probe/variant/size/mode");
    ok(strstr(buf, "\"name\": \"csum/x,y/1500/warm_median\"") != NULL, "gbench median aggregate");
    ok(strstr(buf, "\"real_time\": 3.5, \"cpu_time\": 3.5") != NULL, "gbench median real_time in ns");
        cb_sb_release(&err);
    ok(strstr(buf, "\"cycles_per_op\": 30}") != NULL, "gbench cycles_per_op counter");
    free(buf);

    cb_report_free(&r);
    cb_store_close(st);
    unlink(path);
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
    rmdir(dir);
}

/* The counter a run's figures came from is named from the run (arm64: its
 * CNTFRQ_EL0 rate or its features), whatever machine prints the report. */
static void counter_names(void)
{
    struct cb_run_info u;
    memset(&u, 0, sizeof u);
    snprintf(u.tsc_source, sizeof u.tsc_source, "cntfrq");
    snprintf(u.features, sizeof u.features, "asimd+sve");
    is_str(cb_report_counter(&u), "CNTVCT", "an arm64 run's counter is CNTVCT");
    snprintf(u.tsc_source, sizeof u.tsc_source, "calibrated");
    is_str(cb_report_counter(&u), "CNTVCT", "... also where its rate was calibrated (asimd)");
    snprintf(u.features, sizeof u.features, "pmull+asimd");
    is_str(cb_report_counter(&u), "CNTVCT", "... asimd anywhere in the list");
    snprintf(u.tsc_source, sizeof u.tsc_source, "sysfs");
    snprintf(u.features, sizeof u.features, "sse2+avx2+adx");
    is_str(cb_report_counter(&u), "TSC", "an x86 run's counter is the TSC");
    snprintf(u.tsc_source, sizeof u.tsc_source, "cntfrq");
    snprintf(u.features, sizeof u.features, "%s", "");
    is_str(cb_report_counter(&u), "CNTVCT", "a rate from CNTFRQ_EL0 is arm64's alone");
}

int main(void)
{
    counter_names();
    escapes();
    text_walk();
    assets();
    model();
    return tap_done();
}
