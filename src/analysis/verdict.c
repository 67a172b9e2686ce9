/* verdict.c — the one verdict pipeline (verdict.h): two sides, the
 * options and the store in, rows with their evidence and an outcome out.
 * compare, bisect-check and ab's stored runs are judged here and nowhere
 * else; report/verdict_text.c and verdict_junit.c print what it decided,
 * and cmd/ maps the outcome to an exit status. */
#define _GNU_SOURCE
#include "analysis/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/fingerprint.h"
#include "store/lookup.h"
#include "store/store.h"


/* 1 when the comma list holds word. */
static int cb_list_has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}


void cmp_describe_side(struct cb_store *st, const struct cb_side *s, char *buf, size_t len)
{
    size_t off = (size_t)snprintf(buf, len, "%s = run%s ", s->spec, s->nruns > 1 ? "s" : "");
    for (size_t i = 0; i < s->nruns && off < len; i++) {
        if (i == 8) {
            off += (size_t)snprintf(buf + off, len - off, ",...");
            break;
        }
        off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "", (long long)s->runs[i]);
    }
    (void)st;
    if (s->ncommits == 1 && off < len)
        snprintf(buf + off, len - off, " (commit %.12s)", s->commits[0]);
    else if (s->ncommits > 1 && off < len)
        snprintf(buf + off, len - off, " (%zu commits)", s->ncommits);
}

enum cb_verdict_outcome cb_verdict_outcome_of(const struct cmp_result *res)
{
    if (res->n == 0)
        return CB_VERDICT_NOTHING;
    for (size_t i = 0; i < res->n; i++)
        if (cmp_row_fails(&res->rows[i]))
            return CB_VERDICT_FAIL;
    return res->count[CB_CMP_UNSURE] > 0 ? CB_VERDICT_UNSURE : CB_VERDICT_PASS;
}

/* code_what's environment (codeid.h: "exe build-id H; LD_PRELOAD P H;
 * CB_X=V") as a shell prefix, "LD_PRELOAD=P CB_X=V ", which the stored
 * command line does not show. */
static void env_prefix(const char *what, struct cb_sb *out)
{
    struct cb_sb pre = CB_SB_INIT;
    for (const char *p = strchr(what, ';'); p; p = strchr(p + 1, ';')) {
        const char *item = p + 2, *end = strchr(item, ';');
        int n = end ? (int)(end - item) : (int)strlen(item);
        if (strncmp(item, "LD_PRELOAD ", 11) == 0) {
            const char *path = item + 11, *sp = memchr(path, ' ', (size_t)(n - 11));
            cb_sb_addf(&pre, "%s%.*s", pre.len ? ":" : "", sp ? (int)(sp - path) : n - 11, path);
        } else
            cb_sb_addf(out, "%.*s ", n, item);
    }
    if (pre.len)
        cb_sb_addf(out, "LD_PRELOAD=%s ", pre.buf);
    cb_sb_release(&pre);
}

/* The base's command line with its --tag (if any) left out and "--tag
 * floor" added: the runs it records must not join a side selected by the
 * base's tag, or they would be compared rather than teach the floor. */
static void floor_tag(const char *cmdline, struct cb_sb *out)
{
    const char *p = cmdline;
    for (;;) {
        const char *t = strstr(p, " --tag");
        if (!t || (t[6] != ' ' && t[6] != '=')) {
            cb_sb_adds(out, p);
            break;
        }
        cb_sb_add(out, p, (size_t)(t - p));
        const char *v = t + 7, *end = v;
        /* the value: up to a blank, or a quoted word as cb_quote_cmdline writes it */
        if (*v == '\'') {
            end = strchr(v + 1, '\'');
            end = end ? end + 1 : v + strlen(v);
        } else
            end = v + strcspn(v, " ");
        p = end;
    }
    cb_sb_adds(out, " --tag floor");
}

void cmp_record_hint(struct cb_store *st, const struct cb_side *A, const struct cmp_result *res,
                     char *buf, size_t len)
{
    buf[0] = '\0';
    if (!res->by_test[CMP_TEST_NOFLOOR] || !A->nruns)
        return;
    struct cb_sb cmdline = CB_SB_INIT, what = CB_SB_INIT;
    if (cb_store_run_cmdline(st, A->runs[0], &cmdline, &what) == 0) {
        struct cb_sb env = CB_SB_INIT;
        env_prefix(what.buf, &env);
        struct cb_sb cmd = CB_SB_INIT;
        floor_tag(cmdline.buf, &cmd);
        snprintf(buf, len, "%s%s", env.buf, cmd.buf);
        cb_sb_release(&cmd);
        cb_sb_release(&env);
    }
    cb_sb_release(&cmdline);
    cb_sb_release(&what);
}

int cmp_select_host(struct cb_store *st, struct cb_side *s, const char *host, struct cb_sb *err)
{
    struct cb_machine *m;
    size_t n;
    char list[768];
    int rc = cb_side_machines(st, s, &m, &n);
    if (rc < 0) {
        cb_sb_setf(err, "cannot read the hosts of '%s': %s", s->spec, strerror(-rc));
        return rc;
    }
    cb_machines_list(m, n, list, sizeof list);
    free(m);
    if (host) {
        if ((rc = cb_side_keep_host(st, s, host)) < 0) {
            cb_sb_setf(err, "cannot read the hosts of '%s': %s", s->spec, strerror(-rc));
            return rc;
        }
        if (rc == 0) {
            cb_sb_setf(err, "--host %s: no run of '%s' is from a machine it names (they "
                     "are from %s)", host, s->spec, list);
            return -ENOENT;
        }
        return cmp_select_host(st, s, NULL, err);
    }
    if (n > 1) {
        cb_sb_setf(err, "the runs of '%s' come from %zu machines (%s): one side is one "
                 "machine; choose it with --host", s->spec, n, list);
        return -EXDEV;
    }
    return 0;
}


/* Check the fingerprints: within each side and across.  Returns 0, or
 * -EXDEV with the message in err when refused. */
int cmp_check_env(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                  int force, struct cb_sb *crosses, struct cb_sb *err)
{
    char fa[2048], fb[2048];
    struct cb_sb why = CB_SB_INIT;
    cb_sb_reset(crosses);
    int rc = cb_side_fingerprint(st, A, fa, sizeof fa, &why);
    if (rc == -EXDEV)
        cb_sb_setf(crosses, "%s", why.buf);
    else if (rc < 0)
        return cb_sb_release(&why), rc;
    rc = cb_side_fingerprint(st, B, fb, sizeof fb, &why);
    if (rc == -EXDEV && !crosses->len)
        cb_sb_setf(crosses, "%s", why.buf);
    else if (rc < 0 && rc != -EXDEV)
        return cb_sb_release(&why), rc;
    if (!crosses->len && cb_fingerprint_diff(fa, fb, &why))
        cb_sb_setf(crosses, "base vs head: %s", why.buf);
    cb_sb_release(&why);
    if (crosses->len && !force) {
        cb_sb_setf(err, "refusing to compare across environments (%.900s): measure both sides on the same "
                 "machine, kernel and build, on CPUs of one class (run --cpu N), or pass --force", crosses->buf);
        return -EXDEV;
    }
    return 0;
}


/* The distinct CPUs a side's runs were pinned to: "1" or "0,1". */
static void side_cpus(struct cb_store *st, const struct cb_side *s, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->nruns && off < len; i++) {
        int cpu = cb_store_run_cpu(st, s->runs[i]);
        if (cpu < 0)
            continue;
        char one[16];
        snprintf(one, sizeof one, "%d", cpu);
        if (!cb_list_has_word(buf, one))
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", one);
    }
}

void cmp_cpu_note(struct cb_store *st, const struct cb_side *A, const struct cb_side *B, char *buf,
                  size_t len)
{
    char a[128], b[128];
    side_cpus(st, A, a, sizeof a);
    side_cpus(st, B, b, sizeof b);
    buf[0] = '\0';
    if (strcmp(a, b) != 0 || strchr(a, ','))
        snprintf(buf, len, "pinned cpu %s (base) vs %s (head): CPUs of one class (core type, SMT "
                 "sibling, isolcpus, nohz_full, NUMA node), so compared", a, b);
}

void cb_verdict_init(struct cmp_verdict *v)
{
    memset(v, 0, sizeof *v);
    cb_sb_init(&v->why);
    cb_sb_init(&v->crosses);
}

void cb_verdict_release(struct cmp_verdict *v)
{
    free(v->res.rows);
    v->res.rows = NULL;
    cb_sb_release(&v->why);
    cb_sb_release(&v->crosses);
}

/* An emulated run times no machine (emulation.h): 1 with v's outcome and
 * reason set when a side holds one.  --metric instructions counts, it does
 * not time: an emulator that executes each instruction as the architecture
 * says (qemu's PMU under -icount) counts them as a core would. */
static int emulated(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                    const struct cmp_opts *o, struct cmp_verdict *v)
{
    if (o->want)
        return 0;
    if (cb_store_runs_emulated(st, A->runs, A->nruns, &v->emulated_run, &v->why) != 1 &&
        cb_store_runs_emulated(st, B->runs, B->nruns, &v->emulated_run, &v->why) != 1) {
        cb_sb_reset(&v->why);
        return 0;
    }
    v->outcome = CB_VERDICT_EMULATED;
    return 1;
}

int cb_verdict_again(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                     const struct cmp_opts *o, struct cmp_verdict *v)
{
    int rc = cmp_evaluate(st, A, B, o, &v->res);
    if (rc < 0)
        return rc;
    v->outcome = cb_verdict_outcome_of(&v->res);
    cb_sb_reset(&v->why);
    if (v->outcome == CB_VERDICT_NOTHING)
        cmp_nothing_compared(st, A, B, &v->why);
    cmp_describe_side(st, A, v->x.base_desc, sizeof v->x.base_desc);
    cmp_describe_side(st, B, v->x.head_desc, sizeof v->x.head_desc);
    cmp_record_hint(st, A, &v->res, v->x.record, sizeof v->x.record);
    return 0;
}

int cb_verdict_judge(struct cb_store *st, struct cb_side *A, struct cb_side *B, struct cmp_opts *o,
                     int force, struct cmp_verdict *v, struct cb_sb *err)
{
    int rc;
    if (emulated(st, A, B, o, v))
        return 0;
    if ((rc = cmp_check_env(st, A, B, force, &v->crosses, err)) < 0)
        return rc;
    v->x.crosses = v->crosses.len ? v->crosses.buf : NULL;
    cmp_cpu_note(st, A, B, v->x.cpu_buf, sizeof v->x.cpu_buf);
    v->x.cpu_note = v->x.cpu_buf[0] ? v->x.cpu_buf : NULL;
    if ((rc = cmp_pick_metric(st, A, B, o, &v->x.metric, err)) < 0)
        return rc;
    if ((rc = cb_side_load(st, A, v->x.metric)) < 0 || (rc = cb_side_load(st, B, v->x.metric)) < 0 ||
        (rc = cb_verdict_again(st, A, B, o, v)) < 0) {
        cb_sb_setf(err, "cannot read the samples: %s", cb_store_strerror(rc));
        return rc;
    }
    return 0;
}
