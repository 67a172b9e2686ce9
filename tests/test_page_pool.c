/* test_page_pool.c — the "page_pool" family: hand-worked sequences and
 * counts, every variant against the test's own model of the pool (a
 * ptr_ring of literal slots, written here from the ptr_ring's rules), the
 * family's verify on every variant, a wrong variant called BAD, and the
 * kernel's page_pool case of an in-kernel run set beside its models in the
 * report (text, JSON, HTML) by the family's probe record alone. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/page_pool.h"
#include "harness/probe.h"
#include "report/report.h"
#include "store/store.h"
#include "tap.h"

static const struct cb_variant *variant(const char *name)
{
    for (size_t i = 0; i < cb_probe_page_pool.nvariants; i++)
        if (strcmp(cb_probe_page_pool.variants[i].name, name) == 0)
            return &cb_probe_page_pool.variants[i];
    return NULL;
}

static const struct cb_pp_impl *impl(const char *name)
{
    const struct cb_variant *v = variant(name);
    return v ? v->fn : NULL;
}

/* ---- the test's model ------------------------------------------------------- */

#define RING 1024
#define EMPTY (-1)

struct model {
    int slot[RING];                 /* the ring's slots: a page id or EMPTY */
    int prod, head, tail, live;
    int cache[128], n;
    int *freelist, nfree;           /* the allocator: the last entry goes first */
    int *delay, ndelay, at;
    long ring_ok, ring_full, released;
};

static void m_init(struct model *m, int npages, int ndelay)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < RING; i++)
        m->slot[i] = EMPTY;
    m->freelist = malloc(sizeof(int) * (size_t)npages);
    for (int i = 0; i < npages; i++)
        m->freelist[i] = npages - 1 - i;
    m->nfree = npages;
    m->ndelay = ndelay;
    m->delay = ndelay ? malloc(sizeof(int) * (size_t)ndelay) : NULL;
}

static int m_take(struct model *m)
{
    int id = m->slot[m->head];
    if (id == EMPTY)
        return EMPTY;
    int next = m->head + 1;
    /* Consumed slots are cleared 16 at a time, or at the end of the array. */
    if (next - m->tail >= 16 || next == RING) {
        for (int i = m->tail; i < next; i++)
            m->slot[i] = EMPTY;
        m->tail = next;
    }
    m->head = next == RING ? 0 : next;
    m->live--;
    if (next == RING)
        m->tail = 0;
    return id;
}

static int m_give(struct model *m, int id)
{
    if (m->slot[m->prod] != EMPTY)
        return 0;
    m->slot[m->prod] = id;
    m->prod = (m->prod + 1) % RING;
    m->live++;
    return 1;
}

static int m_alloc(struct model *m)
{
    if (m->n == 0 && m->slot[m->head] != EMPTY) {
        int id;
        while (m->n < 64 && (id = m_take(m)) != EMPTY)
            m->cache[m->n++] = id;
    } else if (m->n == 0) {
        while (m->n < 64 && m->nfree)
            m->cache[m->n++] = m->freelist[--m->nfree];
    }
    return m->n ? m->cache[--m->n] : EMPTY;
}

static void m_release(struct model *m, int id)
{
    m->released++;
    m->freelist[m->nfree++] = id;
}

static void m_put(struct model *m, int id, int direct)
{
    if (direct && m->n < 128) {
        m->cache[m->n++] = id;
        return;
    }
    if (m_give(m, id))
        m->ring_ok++;
    else
        m_release(m, id);
}

/* One burst as the variant's put says; the ids put back into out. */
static int m_burst(struct model *m, int n, enum cb_pp_put put, int *out)
{
    for (int i = 0; i < n; i++) {
        int id = m_alloc(m);
        if (m->ndelay) {
            int old = m->delay[m->at];
            m->delay[m->at] = id;
            m->at = (m->at + 1) % m->ndelay;
            id = old;
        }
        out[i] = id;
    }
    if (put != CB_PP_RING_BULK) {
        for (int i = 0; i < n; i++)
            m_put(m, out[i], put == CB_PP_DIRECT);
        return n;
    }
    for (int at = 0; at < n; at += 16) {
        int i = at, end = at + 16 < n ? at + 16 : n;
        while (i < end && m_give(m, out[i]))
            i++, m->ring_ok++;
        m->ring_full += i < end;
        for (; i < end; i++)
            m_release(m, out[i]);
    }
    return n;
}

/* ---- the checks ---------------------------------------------------------------- */

/* name's bursts against the model of the put it claims; 1 when every page matched. */
static int against_model(const char *name, int ndelay, int quiet)
{
    const struct cb_pp_impl *im = impl(name);
    struct cb_pp_case *s = aligned_alloc(64, (sizeof *s + 63) / 64 * 64);
    memset(s, 0, sizeof *s);
    int npages = (int)cb_pp_case_pages(1300, (size_t)ndelay);
    if (!im || cb_pp_case_init(s, 1300, (size_t)ndelay, NULL) != 0) {
        ok(0, "%s: set up", name);
        free(s);
        return 0;
    }
    struct model m;
    m_init(&m, npages, ndelay);
    for (int i = 0; i < ndelay; i++)
        m.delay[i] = m_alloc(&m);
    int want[1300], bad_burst = -1, bad_at = -1;
    unsigned seed = 12345u + (unsigned)ndelay;
    long pages = 0;
    for (int k = 0; k < 300 && bad_burst < 0; k++) {
        seed = seed * 1103515245u + 12345u;
        int n = (seed >> 16) % 5 == 0 ? 1 + (int)((seed >> 8) % 1300) : 1 + (int)((seed >> 12) % 140);
        m_burst(&m, n, im->put, want);
        im->burst(s, (unsigned)n);
        for (int i = 0; i < n && bad_burst < 0; i++)
            if ((int)s->out[i]->id != want[i])
                bad_burst = k, bad_at = i;
        pages += n;
    }
    if (quiet) {
        cb_pp_case_free(s);
        free(s);
        free(m.freelist);
        free(m.delay);
        return bad_burst < 0;
    }
    ok(bad_burst < 0, "%s, %d pages in flight: %ld pages put back in the test model's order "
       "(first difference: burst %d, page %d)", name, ndelay, pages, bad_burst, bad_at);
    is_int(s->pool.count, m.n, "%s, %d in flight: the alloc cache holds the model's count", name, ndelay);
    is_int(s->pool.st.ring, m.ring_ok, "%s, %d in flight: pages into the ring", name, ndelay);
    is_int(s->pool.release, m.released, "%s, %d in flight: pages back to the allocator", name, ndelay);
    int live = 0;
    for (int i = 0; i < RING; i++)
        live += m.slot[i] != EMPTY;
    is_int(cb_pp_ring_count(&s->pool.ring), live, "%s, %d in flight: ring slots taken", name, ndelay);
    is_int((long)s->pool.nfree + s->pool.count + m.live + ndelay, npages,
           "%s, %d in flight: every page is free, cached, in the ring or in flight", name, ndelay);
    cb_pp_case_free(s);
    free(s);
    free(m.freelist);
    free(m.delay);
    return bad_burst < 0;
}

/* Hand-worked: a fresh pool's first slow path hands out 0..63 from the top
 * of the allocator's stack into the cache, and the last in goes first. */
static void test_hand_worked(void)
{
    struct cb_pp_case *s = aligned_alloc(64, (sizeof *s + 63) / 64 * 64);
    memset(s, 0, sizeof *s);
    cb_pp_case_init(s, 1200, 0, NULL);
    int seq_ok = 1;
    for (int i = 0; i < 10; i++) {
        impl("direct")->burst(s, 1);
        seq_ok &= s->out[0]->id == 63;
    }
    ok(seq_ok, "direct, 1 a burst: page 63 every time (the slow path's last, recycled in place)");
    is_int(s->pool.st.slow, 1, "... one slow path");
    is_int(s->pool.st.fast, 9, "... then 9 from the cache");
    is_int(s->pool.st.cached, 10, "... and 10 puts into the cache");
    is_int(s->pool.hold, 64, "... 64 pages taken from the allocator");
    cb_pp_case_free(s);

    /* ring: 63 down to 0 from the cache, then the ring's 64 (0 first put
     * back, so 0 is the refill's last in and first out), and back up. */
    cb_pp_case_init(s, 1200, 0, NULL);
    int down = 1, up = 1;
    for (int i = 0; i < 128; i++) {
        impl("ring")->burst(s, 1);
        if (i < 64)
            down &= s->out[0]->id == (uint32_t)(63 - i);
        else
            up &= s->out[0]->id == (uint32_t)(i - 64);
    }
    ok(down && up, "ring, 1 a burst: 63..0 from the cache, then 0..63 refilled from the ring");
    is_int(s->pool.st.refill, 1, "... one refill of 64 from the ring");
    is_int(s->pool.st.ring, 128, "... 128 puts into the ring");
    cb_pp_case_free(s);

    /* A burst of 1200 put back one by one: the ring takes 1024, 176 go
     * back to the allocator; in bulks of 16, 64 bulks fit and 11 meet a
     * full ring. */
    cb_pp_case_init(s, 1200, 0, NULL);
    impl("ring")->burst(s, 1200);
    is_int(s->pool.st.ring, 1024, "ring, 1200 at once: 1024 into the ring");
    is_int(s->pool.st.ring_full, 176, "... 176 refused");
    is_int(s->pool.release, 176, "... and released");
    is_int(s->pool.st.slow, 19, "... after 19 slow paths (1200 / 64, rounded up)");
    cb_pp_case_free(s);
    cb_pp_case_init(s, 1200, 0, NULL);
    impl("ring-bulk")->burst(s, 1200);
    is_int(s->pool.st.ring, 1024, "ring-bulk, 1200 at once: 1024 into the ring");
    is_int(s->pool.st.ring_full, 11, "... 11 bulks met a full ring");
    is_int(s->pool.release, 176, "... 176 released");
    cb_pp_case_free(s);

    /* direct, 200 at once: 4 slow paths take 256 pages, 56 stay in the
     * cache, so 72 puts fit in it and 128 go into the ring. */
    cb_pp_case_init(s, 1200, 0, NULL);
    impl("direct")->burst(s, 200);
    is_int(s->pool.st.slow, 4, "direct, 200 at once: 4 slow paths");
    is_int(s->pool.st.cached, 72, "... 72 puts into the cache (56 left in it + 72 = 128)");
    is_int(s->pool.st.cache_full, 128, "... 128 found it full");
    is_int(s->pool.st.ring, 128, "... and went into the ring");
    cb_pp_case_free(s);
    free(s);
}

static void test_verify(void)
{
    for (size_t i = 0; i < cb_probe_page_pool.nvariants; i++) {
        const struct cb_variant *v = &cb_probe_page_pool.variants[i];
        struct cb_verdict vd;
        int rc = cb_probe_page_pool.verify(v, &vd);
        int want = !(v->flags & CB_VARIANT_TESTONLY);
        ok(rc == 0 && vd.ok == want && (!want || vd.checked > 10000),
           "verify %s: %s after %llu pages%s%s",
           v->name, vd.ok ? "ok" : "BAD", (unsigned long long)vd.checked, vd.ok ? "" : ": ",
           vd.ok ? "" : vd.detail);
    }
}

/* The harness's view: setup, run, teardown, warm and cold. */
static void test_cases(void)
{
    for (int mode = 0; mode < 2; mode++)
        for (size_t i = 0; i < cb_probe_page_pool.nvariants; i++) {
            const struct cb_variant *v = &cb_probe_page_pool.variants[i];
            struct cb_case c = {.probe = &cb_probe_page_pool, .variant = v, .size = 64,
                                .mode = mode ? CB_MODE_COLD : CB_MODE_WARM, .cold_bytes = 1 << 20};
            int rc = cb_probe_page_pool.setup(&c);
            if (rc) {
                ok(0, "%s %s: setup", v->name, mode ? "cold" : "warm");
                continue;
            }
            struct cb_pp_case *s = c.priv;
            uint64_t before = s->pool.st.fast + s->pool.st.refill + s->pool.st.slow;
            cb_probe_page_pool.run(&c, 0);
            uint64_t same = s->pool.st.fast + s->pool.st.refill + s->pool.st.slow;
            cb_probe_page_pool.run(&c, 1000);
            uint64_t after = s->pool.st.fast + s->pool.st.refill + s->pool.st.slow;
            ok(same == before && after - before == 1000,
               "%s %s: run(0) draws nothing, run(1000) draws 1000 pages (%llu)", v->name,
               mode ? "cold" : "warm", (unsigned long long)(after - before));
            if (mode)
                is_int(s->ndelay, (1 << 20) / 64, "... cold: 1 MiB of struct pages in flight");
            cb_probe_page_pool.teardown(&c);
        }
    struct cb_case c = {.probe = &cb_probe_page_pool, .variant = variant("direct"), .size = 0};
    is_int(cb_probe_page_pool.setup(&c), -22, "a burst of 0 pages is refused (-EINVAL)");
}

/* A complete run of one case at burst 1, warm: five tsc samples of 10
 * pages, value base + 100 k, overhead 50, so (base + 150) / 10 per page. */
static int64_t add_run(struct cb_store *st, const struct cb_host *h, const char *source,
                       const char *variant, double base)
{
    struct cb_run_meta m = {
        .host = h, .tsc_ghz = 2.4, .tsc_source = "cpuid", .core_ghz_source = "", .pmu = "perf",
        .version = "cb_kmod 0123", .compiler = "linux 6.1.0-57-amd64", .cflags = "",
        .commit = "", .subject = "", .commit_date = "", .dirty = -1, .cmdline = "test", .cpu = 0,
        .source = source,
    };
    int64_t run = 0, ev = 0, cs = 0;
    struct cb_event_row e = {.name = "tsc", .part = "tsc", .pfm = "", .encoding = "", .source = "tsc",
                             .read_method = "rdtsc", .supported = 1, .why = ""};
    struct cb_case_row c = {.probe = "page_pool", .variant = variant, .size = 1, .unit = "page",
                            .op = "packet", .mode = "warm", .verdict = "ok", .detail = "",
                            .clock_ghz = NAN, .clock_spread_pct = NAN};
    struct cb_sample_row smp[5];
    for (int k = 0; k < 5; k++)
        smp[k] = (struct cb_sample_row){.seq = k, .iters = 10, .value = base + 100.0 * k,
                                        .overhead = 50, .smt = NAN, .raw = NAN};
    if (cb_store_run_begin(st, &m, &run) < 0 || cb_store_event_add(st, run, &e, &ev) < 0)
        return -1;
    for (int k = 0; k < 5; k++)
        smp[k].event_id = ev;
    if (cb_store_case_add(st, run, &c, smp, 5, &cs) < 0 || cb_store_run_finish(st, run, "complete") < 0)
        return -1;
    return run;
}

/* What one output writes for r: 0 text, 1 JSON, 2 HTML; the caller frees it. */
static char *captured(const struct cb_report *r, int what)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    if (what == 0)
        cb_report_inkernel_text(r, f);
    else if (what == 1)
        cb_report_json(r, 1, f);
    else
        cb_report_inkernel_html(f, r);
    if (fclose(f) != 0)
        return NULL;
    char *text = buf;
    return text;
}

/* Linux 6.1 puts a page back from process context through the ring (its
 * put checked in_softirq()): the kernel's 40 ticks a page beside ring's 60
 * (+50%) first, then direct's 20 (-50%). */
static void test_beside_kernel(void)
{
    char dir[] = "/tmp/cb-test-page-pool.XXXXXX", db[64];
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *st;
    if (!mkdtemp(dir))
        return;
    snprintf(db, sizeof db, "%s/s.db", dir);
    if (cb_store_open(db, CB_STORE_WRITE, 0, &st, &err) < 0) {
        ok(0, "open a store: %s", err.buf);
        cb_sb_release(&err);
        return;
    }
    struct cb_host h;
    memset(&h, 0, sizeof h);
    snprintf(h.vendor, sizeof h.vendor, "GenuineIntel");
    snprintf(h.hostname, sizeof h.hostname, "testhost");
    int64_t u1 = add_run(st, &h, NULL, "ring", 450);      /* (450 + 150) / 10 = 60 */
    int64_t u2 = add_run(st, &h, NULL, "direct", 50);     /* (50 + 150) / 10 = 20 */
    int64_t k = add_run(st, &h, "in-kernel", "page_pool_alloc+put", 250);   /* 40 */
    struct cb_report r;
    if (ok(u1 > 0 && u2 > 0 && k > 0 && cb_report_load(st, k, &r) == 0,
           "an in-kernel page_pool run and two user-space runs stored; the report loads")) {
        char *txt = captured(&r, 0), *js = captured(&r, 1), *html = captured(&r, 2);
        const char *ring = txt ? strstr(txt, "ring") : NULL, *direct = txt ? strstr(txt, "direct") : NULL;
        ok(txt && strstr(txt, "page_pool_alloc+put") && ring && direct && ring < direct &&
               strstr(txt, "60.0") && strstr(txt, "+50%") && strstr(txt, "20.0") && strstr(txt, "-50%"),
           "text: the kernel's 40.0 beside ring 60.0 (+50%%), then direct 20.0 (-50%%)");
        ok(js && strstr(js, "\"kernel_function\": \"page_pool_alloc+put\", \"kernel_ticks\": 40, "
                            "\"model\": \"ring\", \"model_ticks\": 60, \"error_pct\": 50") &&
               strstr(js, "\"model\": \"direct\", \"model_ticks\": 20, \"error_pct\": -50"),
           "JSON: the same rows");
        ok(html && strstr(html, "page_pool_alloc+put") && strstr(html, "ring") && strstr(html, "direct"),
           "HTML: the kernel's function beside ring and direct");
        if (txt && !strstr(txt, "+50%"))
            printf("# %s\n", txt);
        free(txt);
        free(js);
        free(html);
        cb_report_free(&r);
    }
    cb_store_close(st);
    unlink(db);
    rmdir(dir);
    cb_sb_release(&err);
}

int main(void)
{
    test_hand_worked();
    static const char *const names[] = {"direct", "ring", "ring-bulk"};
    for (int i = 0; i < 3; i++) {
        against_model(names[i], 0, 0);
        against_model(names[i], 300, 0);
    }
    ok(!against_model("ring-bad", 0, 1), "the test's model tells ring-bad from the ring it claims");
    test_verify();
    test_cases();
    test_beside_kernel();
    return tap_done();
}
