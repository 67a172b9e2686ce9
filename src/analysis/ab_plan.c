/* ab_plan.c — which cases ab compares (ab.h): the families either build
 * adds variants to (or -p's), their variants selected by -V (or the
 * plugins' own), each at its family's sizes (or -s) and -m's modes; what
 * only one build has is listed, not compared.  The options arrive parsed
 * (struct cb_ab_want). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ab.h"

/* Is fam/name in a plugin's list of what it added ("csum/a,csum/b")? */
static int in_list(const char *list, const char *fam, const char *name)
{
    size_t fl = strlen(fam), nl = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == fl + 1 + nl && strncmp(p, fam, fl) == 0 && p[fl] == '/' &&
            strncmp(p + fl + 1, name, nl) == 0)
            return 1;
        p = end ? end + 1 : p + len;
    }
    return 0;
}

static void list_add(char *buf, size_t len, const char *fam, const char *name)
{
    size_t used = strlen(buf), need = strlen(fam) + strlen(name) + 3;
    if (used + need < len) {
        if (used)
            buf[used++] = ',';
        buf[used] = '\0';
        strcat(strcat(strcat(buf, fam), "/"), name);
    }
}

/* The families: -p's, else those either plugin adds variants to. */
static int plan_families(const struct cb_ab *ab, const struct cb_ab_want *w, char fams[][64])
{
    int nf = 0;
    if (w->probes) {
        for (int i = 0; i < w->nfams; i++)
            snprintf(fams[nf++], 64, "%s", w->fams[i]);
        return nf;
    }
    for (int s = 0; s < 2; s++) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", ab->info[s].variants);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char *slash = strchr(t, '/');
            if (!slash)
                continue;
            *slash = '\0';
            int seen = 0;
            for (int k = 0; k < nf; k++)
                seen |= strcmp(fams[k], t) == 0;
            if (!seen && nf < CB_AB_MAX_FAMILIES)
                snprintf(fams[nf++], 64, "%s", t);
        }
    }
    return nf;
}

static int glob_any(char *const *globs, const char *name)
{
    for (char *const *g = globs; g && *g; g++)
        if (fnmatch(*g, name, 0) == 0)
            return 1;
    return 0;
}

static int add_case(struct cb_ab *ab, const struct cb_probe *const p[2],
                    const struct cb_variant *const v[2], uint64_t size, enum cb_mode mode)
{
    if (v[0]->only_size && v[0]->only_size != size)
        return 0;
    if (ab->n == CB_AB_MAX_CASES)
        return -E2BIG;
    struct cb_ab_case *c = &ab->cases[ab->n++];
    memset(c, 0, sizeof *c);
    for (int s = 0; s < 2; s++) {
        c->p[s] = p[s];
        c->v[s] = v[s];
        for (int k = 0; k < CB_AB_COPIES; k++) {
            const struct cb_probe *pk = k < ab->ncopies ? cb_probe_find_ns(cb_ab_copy_ns[s][k], p[s]->name) : NULL;
            const struct cb_variant *vk = pk ? cb_variant_find(pk, v[s]->name) : NULL;
            c->pc[s][k] = vk ? pk : p[s];
            c->vc[s][k] = vk ? vk : v[s];
        }
    }
    c->size = size;
    c->mode = mode;
    c->verdict = CB_CMP_UNSURE;
    c->st = (struct cb_paired){0, NAN, NAN, NAN, NAN};
    c->p_adj = NAN;
    snprintf(c->key, sizeof c->key, "%s/%s/%llu/%s", p[0]->name, v[0]->name,
             (unsigned long long)size, cb_mode_name(mode));
    return 0;
}

/* One family: each variant either build has that is selected (-V, else the
 * plugins' own), compared where both have it. */
static int plan_family(struct cb_ab *ab, const char *fam, char *const *vglobs, int *hits,
                       const uint64_t *sizes, int ns, const enum cb_mode *modes, int nm)
{
    const struct cb_probe *p[2] = {cb_probe_find_ns("base", fam), cb_probe_find_ns("head", fam)};
    for (int s = 0; s < 2; s++) {
        const struct cb_probe *ps = p[s];
        for (size_t j = 0; ps && j < ps->nvariants; j++) {
            const struct cb_variant *vj = &ps->variants[j];
            int plug = in_list(ab->info[0].variants, fam, vj->name) ||
                       in_list(ab->info[1].variants, fam, vj->name);
            if ((vj->flags & CB_VARIANT_TESTONLY) || (vglobs ? !glob_any(vglobs, vj->name) : !plug))
                continue;
            for (char *const *g = vglobs; g && *g; g++)
                hits[g - vglobs] |= fnmatch(*g, vj->name, 0) == 0;
            const struct cb_variant *o = p[!s] ? cb_variant_find(p[!s], vj->name) : NULL;
            if (!o) {
                list_add(s ? ab->added : ab->removed, sizeof ab->added, fam, vj->name);
                continue;
            }
            if (s == 1)
                continue;   /* both have it: planned from the base side */
            const struct cb_variant *v[2] = {vj, o};
            const size_t *def = p[0]->sizes;
            int n = ns ? ns : 0;
            while (!ns && def && def[n])
                n++;
            for (int si = 0; si < n; si++)
                for (int mi = 0; mi < nm; mi++) {
                    int rc = add_case(ab, p, v, ns ? sizes[si] : def[si], modes[mi]);
                    if (rc < 0)
                        return rc;
                }
        }
    }
    return 0;
}

int cb_ab_plan(struct cb_ab *ab, const struct cb_ab_want *w, struct cb_sb *err)
{
    char fams[CB_AB_MAX_FAMILIES][64];
    int rc = 0, nf = plan_families(ab, w, fams), nv = w->nvariants;
    char *const *vglobs = w->variants;
    int hits[64] = {0};
    if (nv > 64) {
        cb_sb_setf(err, "--variants: at most 64 names");
        rc = -EINVAL;
    } else if (!(ab->cases = calloc(CB_AB_MAX_CASES, sizeof *ab->cases))) {
        rc = -ENOMEM;
    }
    for (int f = 0; f < nf && rc == 0; f++)
        rc = plan_family(ab, fams[f], vglobs, hits, w->sizes, w->nsizes, w->modes, w->nmodes);
    if (rc == -E2BIG)
        cb_sb_setf(err, "more than %d cases: narrow them with -p, -V, -s or -m", CB_AB_MAX_CASES);
    for (int g = 0; g < nv && rc == 0; g++)
        if (!hits[g]) {
            cb_sb_setf(err, "no variant of either build matches '%s' ('cyclebudget list "
                     "variants --plugin BASE.so' lists them)", vglobs[g]);
            rc = -ENOENT;
        }
    if (rc == 0 && ab->n == 0 && !ab->added[0] && !ab->removed[0]) {
        cb_sb_setf(err, "nothing to compare: the two builds add no variant to %s",
                 w->probes ? w->probes : "any family");
        rc = -EINVAL;
    } else if (rc == 0 && ab->n == 0) {
        /* No verdict from nothing measured. */
        cb_sb_setf(err, "nothing to compare: the two builds have no variant in common "
                 "(only BASE has %s; only HEAD has %s): give two builds of one plugin, or -V a "
                 "variant both have", ab->removed[0] ? ab->removed : "none",
                 ab->added[0] ? ab->added : "none");
        rc = -EINVAL;
    }
    int need = cb_paired_min_rounds(ab->n, ab->o.alpha);
    ab->rounds = ab->o.rounds > need ? ab->o.rounds : need;
    if (!ab->o.max_rounds)
        ab->o.max_rounds = 3 * ab->rounds;
    if (ab->o.max_rounds < ab->rounds)
        ab->o.max_rounds = ab->rounds;
    return rc < 0 ? (rc == -E2BIG ? -EINVAL : rc) : 0;
}
