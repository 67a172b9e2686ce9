/* codeid.c — the identity of the measured code (codeid.h). */
#define _GNU_SOURCE
#include "host/codeid.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/sha256.h"
#include "util/strbuf.h"

/* The object holding addr: its name ("" for the main program), and its
 * GNU build-id in hex when the linker wrote one. */
struct find {
    uintptr_t addr;
    int found;
    char name[512];
    char build_id[129];
};

static void note_build_id(struct find *f, const ElfW(Nhdr) *n, const char *end)
{
    while ((const char *)(n + 1) <= end) {
        const char *name = (const char *)(n + 1);
        const unsigned char *desc = (const unsigned char *)name + ((n->n_namesz + 3) & ~3u);
        const char *next = (const char *)desc + ((n->n_descsz + 3) & ~3u);
        if (next > end)
            return;
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
            n->n_descsz && n->n_descsz <= 64) {
            for (unsigned i = 0; i < n->n_descsz; i++)
                snprintf(f->build_id + 2 * i, 3, "%02x", desc[i]);
            return;
        }
        n = (const ElfW(Nhdr) *)next;
    }
}

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct find *f = arg;
    (void)size;
    int inside = 0;
    for (int i = 0; i < info->dlpi_phnum && !inside; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + p->p_vaddr;
        inside = p->p_type == PT_LOAD && f->addr >= lo && f->addr < lo + p->p_memsz;
    }
    if (!inside)
        return 0;
    f->found = 1;
    snprintf(f->name, sizeof f->name, "%s", info->dlpi_name ? info->dlpi_name : "");
    for (int i = 0; i < info->dlpi_phnum && !f->build_id[0]; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type == PT_NOTE) {
            const char *b = (const char *)(info->dlpi_addr + p->p_vaddr);
            note_build_id(f, (const ElfW(Nhdr) *)b, b + p->p_memsz);
        }
    }
    return 1;
}

/* "exe build-id H" or "lib PATH sha256 H": the object this code is in. */
static int measuring_object(struct cb_sb *full, struct cb_sb *brief)
{
    struct find f = {.addr = (uintptr_t)(void *)measuring_object};
    dl_iterate_phdr(find_object, &f);
    if (!f.found) {
        cb_sb_addf(brief, "measuring code not found");
        return -ENOENT;
    }
    const char *path = f.name[0] ? f.name : "/proc/self/exe";
    const char *kind = f.name[0] ? f.name : "exe";
    if (f.build_id[0]) {
        cb_sb_addf(full, "%s build-id %s\n", kind, f.build_id);
        cb_sb_addf(brief, "%s build-id %.16s", kind, f.build_id);
        return 0;
    }
    char h[65];
    if (cb_sha256_file(path, h) < 0)
        snprintf(h, sizeof h, "unreadable");
    cb_sb_addf(full, "%s sha256 %s\n", kind, h);
    cb_sb_addf(brief, "%s sha256 %.16s", kind, h);
    return 0;
}

/* Each object LD_PRELOAD names (separated by ':' or blanks, as ld.so reads
 * it), by path and content. */
static void preloads(struct cb_sb *full, struct cb_sb *brief)
{
    const char *v = getenv("LD_PRELOAD");
    if (!v || !*v)
        return;
    char *dup = strdup(v), *save = NULL;
    for (char *p = dup ? strtok_r(dup, ": \t", &save) : NULL; p; p = strtok_r(NULL, ": \t", &save)) {
        char h[65];
        if (cb_sha256_file(p, h) < 0)
            snprintf(h, sizeof h, "unreadable");
        cb_sb_addf(full, "LD_PRELOAD %s %s\n", p, h);
        cb_sb_addf(brief, "; LD_PRELOAD %s %.16s", p, h);
    }
    free(dup);
}

/* NAME=VALUE, VALUE's "seed=N" items left out, and the fake clock's host
 * state (host=X, hostmem=X, hostfor=N): they draw the noise and slow the host, not
 * the code, and runs that differ in them measured the same bytes. */
static void one_env(const char *name, struct cb_sb *full, struct cb_sb *brief)
{
    const char *v = getenv(name);
    if (!v)
        return;
    struct cb_sb kept;
    cb_sb_init(&kept);
    char *dup = strdup(v), *save = NULL;
    for (char *p = dup ? strtok_r(dup, ",", &save) : NULL; p; p = strtok_r(NULL, ",", &save))
        if (strncmp(p, "seed=", 5) != 0 && strncmp(p, "host=", 5) != 0 &&
            strncmp(p, "hostmem=", 8) != 0 && strncmp(p, "hostfor=", 8) != 0)
            cb_sb_addf(&kept, "%s%s", kept.len ? "," : "", p);
    free(dup);
    cb_sb_addf(full, "%s=%s\n", name, kept.len ? kept.buf : "");
    cb_sb_addf(brief, "; %s=%s", name, kept.len ? kept.buf : "");
    cb_sb_release(&kept);
}

int cb_codeid_read(struct cb_codeid *c, const char *const *envs, size_t nenv)
{
    struct cb_sb full, brief;
    cb_sb_init(&full);
    cb_sb_init(&brief);
    int rc = measuring_object(&full, &brief);
    preloads(&full, &brief);
    for (size_t i = 0; i < nenv; i++)
        one_env(envs[i], &full, &brief);
    struct cb_sha256 s;
    cb_sha256_init(&s);
    cb_sha256_update(&s, full.buf ? full.buf : "", full.len);
    cb_sha256_hex(&s, c->id);
    snprintf(c->what, sizeof c->what, "%s", brief.buf ? brief.buf : "");
    cb_sb_release(&full);
    cb_sb_release(&brief);
    return rc;
}
