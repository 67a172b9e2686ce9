/* plugin_family.c — a family a plugin defines, as the probe the harness
 * runs: its call over a warm or cold working set, verified by its own
 * check (in a child) or said to be unverified. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cyclebudget/cyclebudget.h>

#include "harness/plugin_internal.h"
#include "harness/probe.h"
#include "harness/workset.h"

/* The probe the harness sees for a family of a plugin: its table entry
 * beside the struct cb_probe the registry points to (first member, so a
 * case's probe pointer leads back to it). */
struct plugin_family {
    struct cb_probe probe;
    const struct cb_plugin_family *fam;
    char detail[160];                 /* "unverified: ..." */
};

struct pf_state {
    struct cb_workset ws;
    const void *fn;
    uint64_t (*call)(const void *fn, void *buf, size_t len);
};

static const size_t pf_default_sizes[] = {64, 1500, 4096, 0};

static int pf_setup(struct cb_case *c)
{
    const struct plugin_family *pf = (const struct plugin_family *)c->probe;
    struct pf_state *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    int rc = cb_workset_init(&s->ws, c->size, 0, c->mode, c->cold_bytes, c->buf_pages);
    if (rc) {
        free(s);
        return rc;
    }
    cb_workset_fill_random(&s->ws, 0x9e3779b97f4a7c15ull ^ c->size);
    s->fn = c->variant->fn;
    s->call = pf->fam->call;
    c->priv = s;
    return 0;
}

static void pf_run(struct cb_case *c, uint64_t iters)
{
    struct pf_state *s = c->priv;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++)
        acc += s->call(s->fn, cb_workset_next(&s->ws), c->size);
    c->sink += acc;
}

static void pf_teardown(struct cb_case *c)
{
    struct pf_state *s = c->priv;
    if (s) {
        cb_workset_free(&s->ws);
        free(s);
    }
    c->priv = NULL;
}

static int pf_verify(const struct cb_variant *v, struct cb_verdict *out);

/* The plugin family v belongs to, found through the registry (a variant
 * does not point to its family). */
static const struct plugin_family *pf_of(const struct cb_variant *v)
{
    for (size_t i = 0; i < cb_registry_size(); i++) {
        const struct cb_probe *p = cb_registry_any(i);
        if (p->verify == pf_verify && v >= p->variants && v < p->variants + p->nvariants)
            return (const struct plugin_family *)p;
    }
    return NULL;
}

/* The family's own check; without one the verdict is ok with nothing
 * checked, and says "unverified" (the collector prints and stores that). */
static int pf_check(const struct cb_variant *v, struct cb_verdict *out)
{
    memset(out, 0, sizeof *out);
    const struct plugin_family *pf = pf_of(v);
    if (!pf)
        return -EINVAL;
    if (!pf->fam->check) {
        out->ok = 1;
        snprintf(out->detail, sizeof out->detail, "%s", pf->detail);
        return 0;
    }
    char why[sizeof out->detail] = "";
    int bad = pf->fam->check(v->fn, why, sizeof why);
    why[sizeof why - 1] = '\0';
    out->ok = bad == 0;
    out->checked = 1;
    if (bad)
        snprintf(out->detail, sizeof out->detail, "%s", why[0] ? why : "its family's check failed");
    return 0;
}

/* The check runs the plugin's code: in a child, as merged_verify does. */
static int pf_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    const struct plugin_family *pf = pf_of(v);
    if (pf && !pf->fam->check)
        return pf_check(v, out);
    return cb_plugin_verify_in_child(pf_check, v, out);
}

struct cb_probe *cb_plugin_family_probe(const struct cb_plugin_family *f)
{
    struct plugin_family *pf = calloc(1, sizeof *pf);
    if (!pf)
        return NULL;
    pf->fam = f;
    snprintf(pf->detail, sizeof pf->detail, "unverified: plugin family %s has no reference check",
             f->name);
    pf->probe = (struct cb_probe){
        .name = f->name, .desc = f->desc ? f->desc : "(plugin family)", .unit = "B",
        .op = "call", .sizes = f->sizes ? f->sizes : pf_default_sizes,
        .setup = pf_setup, .run = pf_run, .verify = pf_verify, .teardown = pf_teardown,
    };
    return &pf->probe;
}

int cb_plugin_family_call(const struct cb_probe *p, const struct cb_variant *v, const void **call)
{
    if (p->verify != pf_verify)
        return 0;
    const struct plugin_family *pf = pf_of(v);
    if (!pf)
        return -ENOTSUP;
    *(uint64_t (**)(const void *, void *, size_t))call = pf->fam->call;
    return 1;
}
