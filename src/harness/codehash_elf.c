/* codehash_elf.c — where a jump or call through a GOT slot leads, for the
 * code identity's walk (codehash.h).
 *
 * The object's dynamic relocations name the slot's symbol.  A bound slot
 * (-z now, RTLD_NOW, a GLOB_DAT) is read; a lazy one still leads back into
 * the PLT, so the symbol is looked up as the dynamic linker would bind it:
 * the global scope first, then the object's own (the reverse for an object
 * linked -Bsymbolic), at the version the object asks for.  Code of the same
 * object is walked by the caller; another object's is its build-id (or its
 * file's sha256), the symbol and the offset it resolves to, so that a
 * changed libc or an LD_PRELOAD'd memcpy is changed code. */
#define _GNU_SOURCE
#include "harness/codehash.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "host/sha256.h"

#if defined(__x86_64__)
#define R_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB R_X86_64_GLOB_DAT
#define R_ABS R_X86_64_64
#define R_REL R_X86_64_RELATIVE
#define R_IREL R_X86_64_IRELATIVE
#elif defined(__aarch64__)
#define R_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB R_AARCH64_GLOB_DAT
#define R_ABS R_AARCH64_ABS64
#define R_REL R_AARCH64_RELATIVE
#define R_IREL R_AARCH64_IRELATIVE
#endif

#if defined(R_SLOT)
/* The parts of an object's dynamic section the lookup needs. */
struct dyn {
    const ElfW(Sym) *sym;
    const char *str;
    const ElfW(Rela) *rela[2];
    size_t nrela[2];
    const ElfW(Half) *versym;
    const ElfW(Verneed) *verneed;
    int symbolic;
};

/* glibc relocates the d_ptr entries of a writable dynamic section, other
 * loaders do not: an address below the load bias is still an offset. */
static const void *dptr(uintptr_t base, ElfW(Addr) p)
{
    return (const void *)(p < base ? base + p : p);
}

static void read_dyn(const struct cb_code_map *m, struct dyn *d)
{
    memset(d, 0, sizeof *d);
    size_t pltsz = 0, relasz = 0;
    const ElfW(Rela) *plt = NULL, *rela = NULL;
    for (const ElfW(Dyn) *e = (const ElfW(Dyn) *)m->dynamic; e->d_tag != DT_NULL; e++) {
        switch (e->d_tag) {
        case DT_SYMTAB: d->sym = dptr(m->base, e->d_un.d_ptr); break;
        case DT_STRTAB: d->str = dptr(m->base, e->d_un.d_ptr); break;
        case DT_JMPREL: plt = dptr(m->base, e->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltsz = e->d_un.d_val; break;
        case DT_RELA: rela = dptr(m->base, e->d_un.d_ptr); break;
        case DT_RELASZ: relasz = e->d_un.d_val; break;
        case DT_VERSYM: d->versym = dptr(m->base, e->d_un.d_ptr); break;
        case DT_VERNEED: d->verneed = dptr(m->base, e->d_un.d_ptr); break;
        case DT_SYMBOLIC: d->symbolic = 1; break;
        case DT_FLAGS: d->symbolic |= (e->d_un.d_val & DF_SYMBOLIC) != 0; break;
        }
    }
    d->rela[0] = plt;
    d->nrela[0] = plt ? pltsz / sizeof *plt : 0;
    d->rela[1] = rela;
    d->nrela[1] = rela ? relasz / sizeof *rela : 0;
}

static const ElfW(Rela) *find_rel(const struct dyn *d, ElfW(Addr) off)
{
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < d->nrela[t]; i++)
            if (d->rela[t][i].r_offset == off)
                return &d->rela[t][i];
    return NULL;
}

/* The version an undefined symbol asks for (memcpy@GLIBC_2.14), or NULL. */
static const char *needed_version(const struct dyn *d, size_t symi)
{
    if (!d->versym || !d->verneed || !d->str)
        return NULL;
    ElfW(Half) want = d->versym[symi] & 0x7fff;
    if (want < 2)
        return NULL;
    for (const ElfW(Verneed) *vn = d->verneed;; vn = (const void *)((const char *)vn + vn->vn_next)) {
        const ElfW(Vernaux) *va = (const void *)((const char *)vn + vn->vn_aux);
        for (unsigned k = 0; k < vn->vn_cnt; k++, va = (const void *)((const char *)va + va->vna_next))
            if (va->vna_other == want)
                return d->str + va->vna_name;
        if (!vn->vn_next)
            return NULL;
    }
}

static void *lookup_in(void *h, const char *name, const char *ver)
{
    return ver ? dlvsym(h, name, ver) : dlsym(h, name);
}

/* Where the dynamic linker binds name for the object m: its scopes in
 * their order. */
static uintptr_t bind(const struct cb_code_map *m, const struct dyn *d, const char *name, const char *ver)
{
    /* The main program's scope is the global one: it has no handle of its own. */
    void *own = m->name && *m->name ? dlopen(m->name, RTLD_LAZY | RTLD_NOLOAD) : NULL, *to = NULL;
    if (own && d->symbolic)
        to = lookup_in(own, name, ver);
    if (!to)
        to = lookup_in(RTLD_DEFAULT, name, ver);
    if (!to && own && !d->symbolic)
        to = lookup_in(own, name, ver);
    if (own)
        dlclose(own);
    return (uintptr_t)to;
}

struct owner {
    uintptr_t a;
    uintptr_t base;
    const char *name;
    unsigned char id[64];
    size_t idlen;
    int found;
};

/* The GNU build-id note among an object's PT_NOTE segments. */
static void build_id(const struct dl_phdr_info *info, struct owner *o)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        size_t al = ph->p_align == 8 ? 8 : 4, off = 0;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        while (off + sizeof(ElfW(Nhdr)) <= ph->p_memsz) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(p + off);
            size_t name_at = off + sizeof *n, desc_at = name_at + ((n->n_namesz + al - 1) & ~(al - 1));
            if (desc_at + n->n_descsz > ph->p_memsz)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(p + name_at, "GNU", 4) &&
                n->n_descsz && n->n_descsz <= sizeof o->id) {
                memcpy(o->id, p + desc_at, n->n_descsz);
                o->idlen = n->n_descsz;
                return;
            }
            off = desc_at + ((n->n_descsz + al - 1) & ~(al - 1));
        }
    }
}

static int find_owner(struct dl_phdr_info *info, size_t size, void *vo)
{
    struct owner *o = vo;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && o->a >= lo && o->a < lo + ph->p_memsz) {
            o->base = info->dlpi_addr;
            o->name = info->dlpi_name;
            o->found = 1;
            build_id(info, o);
            return 1;
        }
    }
    return 0;
}

/* Another object's code at to, for symbol name: its identity, the symbol
 * and the offset (which of an ifunc's versions it chose). */
static int hash_other(uintptr_t to, const char *name, const char *ver, struct cb_sha256 *h)
{
    struct owner o = {.a = to};
    dl_iterate_phdr(find_owner, &o);
    if (!o.found)
        return -ENOTSUP;
    if (o.idlen) {
        cb_sha256_update(h, "B", 1);
        cb_sha256_update(h, o.id, o.idlen);
    } else {
        char hex[65];
        const char *path = o.name && *o.name ? o.name : "/proc/self/exe";
        if (cb_sha256_file(path, hex) < 0)
            return -ENOTSUP;
        cb_sha256_update(h, "F", 1);
        cb_sha256_update(h, hex, 64);
    }
    uint64_t off = (uint64_t)(to - o.base);
    cb_sha256_update(h, name, strlen(name) + 1);
    cb_sha256_update(h, ver ? ver : "", ver ? strlen(ver) + 1 : 1);
    cb_sha256_update(h, &off, sizeof off);
    return 0;
}

int cb_code_got(const struct cb_code_map *m, uintptr_t slot, uintptr_t *to, struct cb_sha256 *h)
{
    if (!m->dynamic || slot < m->obj_lo || slot + sizeof(uintptr_t) > m->obj_hi)
        return -ENOTSUP;
    struct dyn d;
    read_dyn(m, &d);
    const ElfW(Rela) *r = find_rel(&d, (ElfW(Addr))(slot - m->base));
    if (!r)
        return -ENOTSUP;
    uintptr_t now;
    memcpy(&now, (const void *)slot, sizeof now);
    unsigned type = (unsigned)ELF64_R_TYPE(r->r_info);
    size_t symi = ELF64_R_SYM(r->r_info);
    const char *name = "", *ver = NULL;
    if (type == R_SLOT || type == R_GLOB || type == R_ABS) {
        if (!symi || !d.sym || !d.str)
            return -ENOTSUP;
        const ElfW(Sym) *s = &d.sym[symi];
        name = d.str + s->st_name;
        ver = s->st_shndx == SHN_UNDEF ? needed_version(&d, symi) : NULL;
        /* A lazy slot leads back into this object's PLT, not to the
         * symbol's definition here: bind it as the dynamic linker would. */
        int own_def = s->st_shndx != SHN_UNDEF && ELF64_ST_TYPE(s->st_info) != STT_GNU_IFUNC &&
                      now == m->base + s->st_value;
        if (type == R_SLOT && now >= m->obj_lo && now < m->obj_hi && !own_def)
            now = bind(m, &d, name, ver);
    } else if (type != R_REL && type != R_IREL) {
        return -ENOTSUP;
    }
    if (!now)
        return -ENOTSUP;
    if (now >= m->code_lo && now < m->code_hi) {
        *to = now;
        return 1;
    }
    if (now >= m->obj_lo && now < m->obj_hi)
        return -ENOTSUP;   /* this object's, not its code: nothing to walk */
    return hash_other(now, name, ver, h) < 0 ? -ENOTSUP : 0;
}
#else
int cb_code_got(const struct cb_code_map *m, uintptr_t slot, uintptr_t *to, struct cb_sha256 *h)
{
    (void)m;
    (void)slot;
    (void)to;
    (void)h;
    return -ENOTSUP;
}
#endif
