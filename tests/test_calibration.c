/* test_calibration.c — the machine's ceilings in the store (issue 19,
 * 0010_ceilings.sql): a calibration written is read back figure for figure
 * (NAN per-cycle figures as NULL, never 0), found again by its host and
 * environment and not by another, the newest of several is the one found,
 * and a run's link to it round-trips.  The figures are the fixed model's and
 * hand-set ones, so nothing here times the machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/ceilings.h"
#include "store/store.h"
#include "tap.h"

static struct cb_host host(void)
{
    struct cb_host h;
    memset(&h, 0, sizeof h);
    snprintf(h.vendor, sizeof h.vendor, "GenuineIntel");
    h.family = 6;
    h.model = 173;
    snprintf(h.model_name, sizeof h.model_name, "Intel(R) Xeon(R) Processor");
    snprintf(h.kernel, sizeof h.kernel, "6.1.0-18-amd64");
    snprintf(h.hostname, sizeof h.hostname, "ceil-test");
    h.ncpus = 2;
    h.llc_bytes = 480u << 20;
    return h;
}

int main(void)
{
    char path[] = "/tmp/cb-cal-XXXXXX";
    struct cb_sb err = CB_SB_INIT;
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    unlink(path);
    struct cb_store *st;
    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "open");
    struct cb_host h = host();
    struct cb_run_meta m = {
        .host = &h, .tsc_ghz = 2.6, .tsc_source = "cpuid", .core_ghz = 3.9,
        .core_ghz_source = "estimate", .pmu = "perf", .version = "t", .compiler = "cc",
        .cflags = "", .commit = "", .cmdline = "cyclebudget run", .cpu = 0,
    };
    const char *fp = "hypervisor=yes\ngovernor=performance\n";

    int64_t id = 0;
    is_int(cb_store_calibration_find(st, &m, fp, "model", &id), -ENOENT, "nothing stored yet");

    struct cb_ceilings a;
    cb_ceilings_model(&a, 2.6, 1.5);
    /* One figure without a per-cycle value, and a note, to see both kept. */
    a.c[1].bpc = NAN;
    snprintf(a.note, sizeof a.note, "DRAM set capped");
    is_int(cb_store_calibration_add(st, &m, fp, &a, &id), 0, "calibration stored");
    ok(id > 0, "with an id");

    struct cb_ceilings b;
    char taken[32];
    is_int(cb_store_calibration_get(st, id, &b, taken, sizeof taken), 0, "read back");
    ok(strlen(taken) == 24 && taken[10] == 'T' && taken[23] == 'Z', "time stamp %s", taken);
    is_str(b.source, "model", "source");
    is_near(b.tsc_ghz, 2.6, 1e-12, "tsc_ghz");
    is_near(b.core_ghz, 3.9, 1e-12, "core_ghz 2.6 * 1.5");
    is_str(b.core_method, "model", "core method");
    is_uint(b.cache[0], 32 << 10, "L1d size");
    is_uint(b.cache[2], 32 << 20, "L3 size");
    is_str(b.note, "DRAM set capped", "note");
    is_uint(b.n, a.n, "every ceiling (%zu)", a.n);
    int same = b.n == a.n;
    for (size_t i = 0; same && i < a.n; i++) {
        const struct cb_ceiling *x = &a.c[i], *y = &b.c[i];
        same = strcmp(x->kind, y->kind) == 0 && strcmp(x->isa, y->isa) == 0 &&
               x->level == y->level && x->set_bytes == y->set_bytes && x->bpt == y->bpt &&
               (isnan(x->bpc) ? isnan(y->bpc) : x->bpc == y->bpc) && x->spread_pct == y->spread_pct &&
               x->trials == y->trials;
        if (!same)
            printf("# ceiling %zu differs: %s %s %d\n", i, y->kind, y->isa, y->level);
    }
    ok(same, "every figure as written, the missing per-cycle one NAN");
    is_uint(b.set[CB_L2], a.set[CB_L2], "level sets rebuilt");
    const struct cb_ceiling *l1 = cb_ceil_best(&b, "load", CB_L1);
    ok(l1 && l1->bpt == 64, "best L1 load after the round trip: 64 B/tick");

    int64_t got = 0;
    is_int(cb_store_calibration_find(st, &m, fp, "model", &got), 0, "found by host and environment");
    is_int((int)got, (int)id, "the one stored");
    is_int(cb_store_calibration_find(st, &m, "governor=powersave\n", "model", &got), -ENOENT,
           "another environment: not found");
    struct cb_host h2 = h;
    snprintf(h2.microcode, sizeof h2.microcode, "0x2b000600");
    struct cb_run_meta m2 = m;
    m2.host = &h2;
    is_int(cb_store_calibration_find(st, &m2, fp, "model", &got), -ENOENT, "another microcode: not found");

    is_int(cb_store_calibration_find(st, &m, fp, "measured", &got), -ENOENT,
           "a measurement is never judged against the model's figures");
    int64_t id2;
    is_int(cb_store_calibration_add(st, &m, fp, &a, &id2), 0, "a second calibration");
    is_int(cb_store_calibration_find(st, &m, fp, "model", &got), 0, "found");
    is_int((int)got, (int)id2, "the newest is the one found");

    int64_t run;
    is_int(cb_store_run_begin(st, &m, &run), 0, "a run");
    int64_t link;
    int reused;
    is_int(cb_store_run_calibration(st, run, &link, &reused), -ENOENT, "no link yet");
    is_int(cb_store_run_calibration_set(st, run, id2, 1), 0, "linked");
    is_int(cb_store_run_calibration(st, run, &link, &reused), 0, "link read back");
    is_int((int)link, (int)id2, "to the calibration");
    is_int(reused, 1, "as reused");
    is_int(cb_store_calibration_get(st, 9999, &b, NULL, 0), -ENOENT, "no such calibration");
    cb_store_close(st);

    /* A store held at schema 8 has no calibrations: nothing is found, and
     * adding says so rather than failing in SQL. */
    char old[] = "/tmp/cb-cal8-XXXXXX";
    fd = mkstemp(old);
    close(fd);
    unlink(old);
    is_int(cb_store_open(old, CB_STORE_WRITE, 8, &st, &err), 0, "a schema-8 store");
    is_int(cb_store_calibration_find(st, &m, fp, "model", &got), -ENOENT, "schema 8: none found");
    is_int(cb_store_calibration_add(st, &m, fp, &a, &got), -ENOSYS, "schema 8: cannot add");
    cb_store_close(st);
    unlink(old);
    for (const char *sfx = "-wal"; sfx; sfx = strcmp(sfx, "-wal") == 0 ? "-shm" : NULL) {
        char p[64];
        snprintf(p, sizeof p, "%s%s", path, sfx);
        unlink(p);
        snprintf(p, sizeof p, "%s%s", old, sfx);
        unlink(p);
    }
    unlink(path);
    cb_sb_release(&err);
    return tap_done();
}
