/* plugin.c — load a variant plugin: try it in a child, then here; check its
 * table; add its variants and families to the registry. */
#define _GNU_SOURCE
#include "harness/plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cyclebudget/cyclebudget.h>

#include "util/child.h"
#include "harness/plugin_internal.h"
#include "harness/plugin_verify.h"
#include "harness/probe.h"
#include "host/sha256.h"
#include "util/strbuf.h"
#include "harness/workset.h"

/* A plugin gets this long to load and register in the child, and a
 * plugin variant this long to be verified in one. */
#define LOAD_SECONDS 10
#define MAX_FAMILIES 16
#define MAX_VARIANTS 64


static const struct cb_probe *builtin_named(const char *name)
{
    for (size_t i = 0; i < cb_nprobes; i++)
        if (strcmp(cb_probes[i]->name, name) == 0)
            return cb_probes[i];
    return NULL;
}

/* A built-in family whose variants are plain functions: its probe record
 * says how one is called (cb_probe.call), and so a plugin can add to it. */
static int is_pluggable(const char *family)
{
    const struct cb_probe *p = builtin_named(family);
    return p && p->call != CB_CALL_NONE;
}

/* Their names joined for a message ("a, b or c"), from the registry. */
static void pluggable_names(struct cb_sb *sb)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < cb_nprobes; i++)
        n += cb_probes[i]->call != CB_CALL_NONE;
    for (size_t i = 0; i < cb_nprobes; i++)
        if (cb_probes[i]->call != CB_CALL_NONE)
            cb_sb_addf(sb, "%s%s", k++ == 0 ? "" : k == n ? " or " : ", ", cb_probes[i]->name);
}

static int good_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 48)
        return 0;
    for (; *s; s++)
        if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') ||
              strchr("_.+-", *s)))
            return 0;
    return 1;
}

static const struct cb_plugin_family *own_family(const struct cb_plugin *t, const char *name)
{
    for (size_t i = 0; i < t->nfamilies; i++)
        if (strcmp(t->families[i].name, name) == 0)
            return &t->families[i];
    return NULL;
}

/* Everything about the table that could make it unsafe or ambiguous to
 * register; the same check runs in the child and here.  0 or -EPROTO /
 * -EINVAL with err set.  api_version is read before anything else: it is
 * the first member in every version of the structure. */
static int check_table(const struct cb_plugin *t, const char *ns, const char *path, struct cb_sb *err)
{
    if (!t) {
        cb_sb_setf(err, "plugin %s: cyclebudget_plugin() returned NULL", path);
        return -EINVAL;
    }
    if (t->api_version != CB_API_VERSION) {
        cb_sb_setf(err, "plugin %s was built for plugin API version %u, and this "
                 "cyclebudget speaks version %d: rebuild it against this cyclebudget's "
                 "<cyclebudget/cyclebudget.h>", path, t->api_version, CB_API_VERSION);
        return -EPROTO;
    }
    if (!good_name(t->name)) {
        cb_sb_setf(err, "plugin %s: its name must be 1-48 characters of [A-Za-z0-9_.+-]", path);
        return -EINVAL;
    }
    if (t->nfamilies > MAX_FAMILIES || t->nvariants > MAX_VARIANTS || t->nvariants == 0 ||
        (t->nfamilies && !t->families) || !t->variants) {
        cb_sb_setf(err, "plugin %s: it must register 1..%d variants and 0..%d families "
                 "(it says %zu and %zu)", path, MAX_VARIANTS, MAX_FAMILIES, t->nvariants,
                 t->nfamilies);
        return -EINVAL;
    }
    for (size_t i = 0; i < t->nfamilies; i++) {
        const struct cb_plugin_family *f = &t->families[i];
        if (!good_name(f->name) || !f->call) {
            cb_sb_setf(err, "plugin %s: family %zu needs a name of [A-Za-z0-9_.+-] and a "
                     "call function", path, i + 1);
            return -EINVAL;
        }
        if (cb_probe_find_ns(ns, f->name) || own_family(t, f->name) != f) {
            cb_sb_setf(err, "plugin %s: family '%s' exists already: give your family "
                     "a name of its own, or add variants to the existing one", path, f->name);
            return -EINVAL;
        }
    }
    for (size_t i = 0; i < t->nvariants; i++) {
        const struct cb_plugin_variant *v = &t->variants[i];
        const char *fam = v->family ? v->family : "(null)";
        if (!own_family(t, fam) && !is_pluggable(fam)) {
            struct cb_sb sb = CB_SB_INIT;
            cb_sb_addf(&sb, "plugin %s: variant %zu's family '%s' %s; a plugin adds to ", path,
                       i + 1, fam,
                       cb_probe_find_ns(ns, fam) ? "takes no plugin variants (its variants are "
                                                   "parameters of a built-in model, not functions)"
                                                 : "does not exist");
            pluggable_names(&sb);
            cb_sb_adds(&sb, ", or to a family it defines");
            cb_sb_setf(err, "%s", sb.buf);
            cb_sb_release(&sb);
            return -EINVAL;
        }
        if (!good_name(v->name) || !v->fn) {
            cb_sb_setf(err, "plugin %s: variant %zu of %s needs a name of 1-48 characters "
                     "of [A-Za-z0-9_.+-] and a function", path, i + 1, fam);
            return -EINVAL;
        }
        const struct cb_probe *p = cb_probe_find_ns(ns, fam);
        int dup = p && cb_variant_find(p, v->name);
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(t->variants[j].family, fam) == 0 && strcmp(t->variants[j].name, v->name) == 0;
        if (dup) {
            cb_sb_setf(err, "plugin %s: %s has a variant '%s' already: name yours "
                     "differently", path, fam, v->name);
            return -EINVAL;
        }
    }
    return 0;
}

/* dlopen path and call its entry point.  0 with *out, or -ENOEXEC. */
static int open_table(const char *path, void **handle, const struct cb_plugin **out, struct cb_sb *err)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        cb_sb_setf(err, "%s is not a plugin: it is not a shared object this process can "
                 "load (%s); build one with cc -shared -fPIC $(pkg-config --cflags cyclebudget)",
                 path, why ? why : "dlopen failed");
        return -ENOEXEC;
    }
    const struct cb_plugin *(*entry)(void);
    *(void **)&entry = dlsym(h, CB_PLUGIN_ENTRY);
    if (!entry) {
        cb_sb_setf(err, "%s is a shared object but not a cyclebudget plugin: it defines no "
                 CB_PLUGIN_ENTRY "() (see cyclebudget(3))", path);
        dlclose(h);
        return -ENOEXEC;
    }
    *handle = h;
    *out = entry();
    return 0;
}

/* The first try, in a child: whatever the plugin's constructors or entry
 * point do (crash, hang, exit), this process has not run them.  The child
 * writes its message, if any, into a pipe.  0, or a negative errno with err
 * set. */
static int try_in_child(const char *path, const char *ns, struct cb_sb *err)
{
    int fd[2];
    if (pipe(fd) < 0) {
        cb_sb_setf(err, "cannot load plugin %s: pipe: %s", path, strerror(errno));
        return -errno;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fd[0]);
        close(fd[1]);
        cb_sb_setf(err, "cannot load plugin %s: fork: %s", path, strerror(e));
        return -e;
    }
    if (pid == 0) {
        close(fd[0]);
        /* Die of the fault itself, not in a handler this process (or a
         * sanitizer's runtime) installed: the parent reports the signal. */
        cb_plugin_default_faults();
        alarm(LOAD_SECONDS);
        struct cb_sb msg = CB_SB_INIT;   /* the child's: _exit() frees it */
        void *h;
        const struct cb_plugin *t;
        int rc = open_table(path, &h, &t, &msg);
        if (rc == 0)
            rc = check_table(t, ns, path, &msg);
        if (msg.len && write(fd[1], msg.buf, msg.len) < 0)
            rc = -EIO;
        _exit(rc == 0 ? 0 : -rc < 126 ? -rc : 125);
    }
    close(fd[1]);
    /* The child's alarm() is its own: a plugin may block SIGALRM or reset
     * it, so the parent bounds the wait too (child.h). */
    struct cb_sb got = CB_SB_INIT;
    struct cb_child c = {.pid = pid, .fd = fd[0], .out = &got, .max_out = 1023,
                         .timeout_ms = (LOAD_SECONDS + 5) * 1000};
    int wrc = cb_child_wait(&c);
    if (wrc < 0 || !WIFEXITED(c.status) || WEXITSTATUS(c.status) == 0)
        cb_sb_release(&got);   /* the child's words are read only when it exits with a code */
    if (wrc == -EINTR) {
        cb_sb_setf(err, "interrupted while plugin %s was being loaded: nothing was measured",
                 path);
        return -EINTR;
    }
    int st = wrc == -ETIMEDOUT ? (int)SIGALRM : c.status;   /* as if its alarm had fired */
    if (wrc < 0 && wrc != -ETIMEDOUT) {
        cb_sb_setf(err, "cannot load plugin %s: waiting for its check: %s", path,
                 strerror(-wrc));
        return wrc;
    }
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        if (sig == SIGALRM)
            cb_sb_setf(err, "plugin %s did not finish loading in %d s (it hangs in a "
                     "constructor or in " CB_PLUGIN_ENTRY "()): refused", path, LOAD_SECONDS);
        else
            cb_sb_setf(err, "plugin %s crashed while loading (signal %d: %s, in a "
                     "constructor or in " CB_PLUGIN_ENTRY "()): refused; nothing was measured",
                     path, sig, strsignal(sig));
        return -EFAULT;
    }
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 125;
    if (code == 0)
        return 0;
    if (got.len)
        cb_sb_setf(err, "%s", got.buf);
    else
        cb_sb_setf(err, "plugin %s exited (status %d) while loading, instead of returning "
                 "its table: refused", path, code);
    cb_sb_release(&got);
    return code == ENOEXEC || code == EPROTO || code == EINVAL ? -code : -EFAULT;
}

/* The registered probe whose variant table holds v. */
static const struct cb_probe *owner_of(const struct cb_variant *v)
{
    for (size_t i = 0; i < cb_registry_size(); i++) {
        const struct cb_probe *p = cb_registry_any(i);
        if (v >= p->variants && v < p->variants + p->nvariants)
            return p;
    }
    return NULL;
}

/* A plugin's variant of a built-in family, in the child: the family's
 * verifier, then the same lengths and alignments against guard pages at
 * fixed places in the page (plugin_verify.h), so that the verdict does not
 * depend on where malloc put the buffer in this run. */
static int plugin_variant_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    const struct cb_probe *p = owner_of(v);
    const struct cb_probe *base = p ? builtin_named(p->name) : NULL;
    if (!base)
        return -EINVAL;
    int rc = base->verify(v, out);
    if (rc < 0 || !out->ok)
        return rc;
    uint64_t checked = out->checked;
    rc = cb_plugin_verify_paged(base->call, v, out);
    out->checked += checked;
    return rc;
}

/* The verify of a built-in family a plugin added to: its own variants as
 * ever, in this process; the plugin's in a child. */
static int merged_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    const struct cb_probe *p = owner_of(v);
    const struct cb_probe *base = p ? builtin_named(p->name) : NULL;
    if (!base)
        return -EINVAL;
    if ((size_t)(v - p->variants) < base->nvariants)
        return base->verify(v, out);
    return cb_plugin_verify_in_child(plugin_variant_verify, v, out);
}

/* The length the size check's child verifies (set before it forks). */
static size_t size_to_verify;

static int size_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    const struct cb_probe *p = owner_of(v);
    const struct cb_probe *base = p ? builtin_named(p->name) : NULL;
    if (!base)
        return -EINVAL;
    return cb_plugin_verify_len(base->call, v, size_to_verify, out);
}

int cb_plugin_owns(const struct cb_probe *p, const struct cb_variant *v)
{
    const void *call;
    if (cb_plugin_family_call(p, v, &call) == 1)
        return 1;
    const struct cb_probe *base = builtin_named(p->name);
    return p->verify == merged_verify && base && (size_t)(v - p->variants) >= base->nvariants;
}

int cb_plugin_verify_size(const struct cb_probe *p, const struct cb_variant *v, uint64_t size,
                          struct cb_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->ok = 1;
    const void *call;
    if (!cb_plugin_owns(p, v) || cb_plugin_family_call(p, v, &call) == 1 ||
        cb_plugin_verify_covers(size))
        return 0;
    size_to_verify = (size_t)size;
    int rc = cb_plugin_verify_in_child(size_verify, v, out);
    if (rc < 0) {
        out->ok = 0;
        snprintf(out->detail, sizeof out->detail, "could not be verified at %llu B, a size "
                 "this run times: %s", (unsigned long long)size, strerror(-rc));
    }
    return rc;
}

/* ---- registering ------------------------------------------------------------- */

static int add_variants(const char *family, const struct cb_plugin *t, const struct cb_probe *base,
                        struct cb_probe *np)
{
    size_t k = 0;
    for (size_t i = 0; i < t->nvariants; i++)
        k += strcmp(t->variants[i].family, family) == 0;
    size_t nb = base ? base->nvariants : 0;
    struct cb_variant *vs = calloc(nb + k, sizeof *vs);
    if (!vs)
        return -ENOMEM;
    if (nb)
        memcpy(vs, base->variants, nb * sizeof *vs);
    size_t n = nb;
    for (size_t i = 0; i < t->nvariants; i++)
        if (strcmp(t->variants[i].family, family) == 0)
            vs[n++] = (struct cb_variant){
                .name = t->variants[i].name,
                .desc = t->variants[i].desc ? t->variants[i].desc : "(plugin variant)",
                .fn = t->variants[i].fn,
            };
    np->variants = vs;
    np->nvariants = n;
    /* A built-in family's quick suite keeps its own globs, and the
     * plugin's variants join it: they are what the user came to measure. */
    if (base && base->suite_variants) {
        size_t len = strlen(base->suite_variants) + 1;
        for (size_t i = nb; i < n; i++)
            len += strlen(vs[i].name) + 1;
        char *g = malloc(len);
        if (!g)
            return -ENOMEM;
        strcpy(g, base->suite_variants);
        for (size_t i = nb; i < n; i++)
            strcat(strcat(g, ","), vs[i].name);
        np->suite_variants = g;
    }
    return 0;
}

/* Into the registry: a copy of each built-in family the plugin adds to,
 * with its variants appended, and a probe per family of its own.  What is
 * allocated here lives as long as the process (the registry's rule). */
static int register_table(const struct cb_plugin *t, const char *ns, struct cb_plugin_info *out)
{
    size_t off = 0;
    for (size_t i = 0; i < cb_nprobes; i++) {
        const char *name = cb_probes[i]->name;
        const struct cb_probe *base = cb_probe_find_ns(ns, name);
        int any = 0;
        for (size_t j = 0; j < t->nvariants && cb_probes[i]->call != CB_CALL_NONE; j++)
            any |= strcmp(t->variants[j].family, name) == 0;
        if (!any || !base)
            continue;
        struct cb_probe *np = malloc(sizeof *np);
        if (!np)
            return -ENOMEM;
        *np = *base;
        np->verify = merged_verify;
        int rc = add_variants(name, t, base, np);
        if (rc == 0)
            rc = cb_registry_add_ns(ns, np);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < t->nfamilies; i++) {
        const struct cb_plugin_family *f = &t->families[i];
        struct cb_probe *fp = cb_plugin_family_probe(f);
        if (!fp)
            return -ENOMEM;
        int rc = add_variants(f->name, t, NULL, fp);
        if (rc == 0)
            rc = cb_registry_add_ns(ns, fp);
        if (rc)
            return rc;
    }
    for (size_t j = 0; j < t->nvariants; j++)
        off += (size_t)snprintf(out->variants + off, off < sizeof out->variants ? sizeof out->variants - off : 0,
                                "%s%s/%s", j ? "," : "", t->variants[j].family, t->variants[j].name);
    return 0;
}

int cb_plugin_code_roots(const struct cb_probe *p, const struct cb_variant *v, const void **call)
{
    *call = NULL;
    int r = cb_plugin_family_call(p, v, call);
    if (r != 0)
        return r < 0 ? r : 0;
    return is_pluggable(p->name) ? 0 : -ENOTSUP;
}

int cb_plugin_load(const char *arg, struct cb_plugin_info *out, struct cb_sb *err)
{
    return cb_plugin_load_ns(arg, NULL, out, err);
}

int cb_plugin_load_ns(const char *arg, const char *ns, struct cb_plugin_info *out, struct cb_sb *err)
{
    memset(out, 0, sizeof *out);
    /* dlopen searches the library path for a bare name: a plugin is a file. */
    char path[PATH_MAX];
    if (!realpath(arg, path) || access(path, R_OK) != 0) {
        cb_sb_setf(err, "cannot read plugin %s: %s; give the path of a shared object, "
                 "e.g. --plugin ./my.so", arg, strerror(errno));
        return -ENOENT;
    }
    int rc = try_in_child(path, ns, err);
    if (rc < 0)
        return rc;
    void *h;
    const struct cb_plugin *t;
    if ((rc = open_table(path, &h, &t, err)) < 0 ||
        (rc = check_table(t, ns, path, err)) < 0)
        return rc;
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->name, sizeof out->name, "%s", t->name);
    if ((rc = cb_sha256_file(path, out->sha256)) < 0) {
        cb_sb_setf(err, "cannot read plugin %s: %s", path, strerror(-rc));
        return -ENOENT;
    }
    if ((rc = register_table(t, ns, out)) < 0) {
        cb_sb_setf(err, "cannot register plugin %s: %s", path,
                 rc == -ENOSPC ? "too many plugin families" : strerror(-rc));
        return -EINVAL;
    }
    /* The handle stays open: the registry calls into it until exit. */
    return 0;
}
