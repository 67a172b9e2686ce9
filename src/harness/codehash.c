/* codehash.c — the measured code's identity, apart from its address
 * (codehash.h): walk it from its roots, hash it with what a link rewrites
 * masked. */
#define _GNU_SOURCE
#include "harness/codehash.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "host/sha256.h"

#define SET_SIZE (4 * CB_CODE_MAX_INSNS)   /* a power of two */

/* The instructions seen so far: address -> the order they were first
 * decoded in, which stands in for the address in the hash. */
struct walk {
    const struct cb_code_map *map;
    enum cb_code_arch arch;
    uintptr_t got;                       /* the slot a GOT jump or call reads; 0 none */
    uintptr_t *key;
    uint32_t *idx;
    uint32_t n;
    uintptr_t *todo;
    size_t ntodo;
    struct cb_sha256 h;
    unsigned adrp;                       /* aarch64: registers an adrp set in this block */
    uintptr_t adrp_page[32];
    unsigned ldslot;                     /* aarch64: registers loaded from an adrp's page */
    uintptr_t ldslot_at[32];             /* ... and the slot each was loaded from */
};

static uint32_t *slot(struct walk *w, uintptr_t a, int *found)
{
    size_t i = (size_t)((a * 0x9e3779b97f4a7c15ull) >> 17) & (SET_SIZE - 1);
    while (w->key[i] && w->key[i] != a)
        i = (i + 1) & (SET_SIZE - 1);
    *found = w->key[i] == a;
    if (!*found)
        w->key[i] = a;
    return &w->idx[i];
}

static int lookup(const struct walk *w, uintptr_t a, uint32_t *idx)
{
    size_t i = (size_t)((a * 0x9e3779b97f4a7c15ull) >> 17) & (SET_SIZE - 1);
    while (w->key[i] && w->key[i] != a)
        i = (i + 1) & (SET_SIZE - 1);
    if (w->key[i] != a)
        return 0;
    *idx = w->idx[i];
    return 1;
}

static int in_code(const struct walk *w, uintptr_t a)
{
    return a >= w->map->code_lo && a < w->map->code_hi;
}

/* The first len bytes of read-only data at a, clamped to its segment:
 * hashed in place of the displacement that named them.  Writable data
 * (the GOT: addresses, different every run) is not hashed. */
/* An operand's bytes as the instruction reads them.  They may run past the
 * C object that holds them (a 16-byte load of a 4-byte constant reads its
 * neighbours too) while staying inside the mapped data segment (checked by
 * the caller), so AddressSanitizer's redzone there is no fault: read them
 * byte by byte, unchecked, through a volatile pointer that no memcpy
 * (which ASan intercepts) replaces. */
__attribute__((no_sanitize_address)) static void operand_bytes(unsigned char *dst, uintptr_t a, size_t n)
{
    const volatile unsigned char *src = (const volatile unsigned char *)a;
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

static void hash_data(struct walk *w, uintptr_t a, size_t len)
{
    const struct cb_code_map *m = w->map;
    for (size_t k = 0; k < m->ndata; k++)
        if (a >= m->data_lo[k] && a < m->data_hi[k]) {
            unsigned char buf[64];
            size_t n = m->data_hi[k] - a < len ? m->data_hi[k] - a : len;
            cb_sha256_update(&w->h, "D", 1);
            for (size_t off = 0; off < n; off += sizeof buf) {
                size_t c = n - off < sizeof buf ? n - off : sizeof buf;
                operand_bytes(buf, a + off, c);
                cb_sha256_update(&w->h, buf, c);
            }
            return;
        }
    cb_sha256_update(&w->h, "W", 1);
}

/* A direct target: hashed as the order it was first seen in, or as new
 * (and queued). */
static int target(struct walk *w, uintptr_t t)
{
    uint32_t idx;
    if (!in_code(w, t))
        return -EFAULT;
    if (lookup(w, t, &idx)) {
        cb_sha256_update(&w->h, &idx, sizeof idx);
        return 0;
    }
    cb_sha256_update(&w->h, "N", 1);
    if (w->ntodo == CB_CODE_MAX_INSNS)
        return -E2BIG;
    w->todo[w->ntodo++] = t;
    return 0;
}

static int64_t sext(uint64_t v, int bits)
{
    uint64_t m = 1ull << (bits - 1);
    return (int64_t)((v ^ m) - m);
}

/* aarch64: one instruction, its PC-relative fields masked in *word, its
 * direct target in *t. */
static void a64_decode(struct walk *w, uintptr_t pc, uint32_t *word, struct cb_insn *in, uintptr_t *t)
{
    uint32_t x = *word, mask = 0;
    memset(in, 0, sizeof *in);
    in->len = 4;
    if ((x & 0x7c000000) == 0x14000000) {            /* b, bl */
        mask = 0x03ffffff;
        in->flow = (x >> 31) ? CB_FLOW_CALL : CB_FLOW_JUMP;
        *t = pc + (uintptr_t)(sext(x & mask, 26) * 4);
    } else if ((x & 0xff000010) == 0x54000000 || (x & 0x7e000000) == 0x34000000) {
        mask = 0x00ffffe0;                           /* b.cond, cbz, cbnz */
        in->flow = CB_FLOW_BRANCH;
        *t = pc + (uintptr_t)(sext((x & mask) >> 5, 19) * 4);
    } else if ((x & 0x7e000000) == 0x36000000) {     /* tbz, tbnz */
        mask = 0x0007ffe0;
        in->flow = CB_FLOW_BRANCH;
        *t = pc + (uintptr_t)(sext((x & mask) >> 5, 14) * 4);
    } else if ((x & 0x1f000000) == 0x10000000) {     /* adr, adrp */
        mask = 0x60ffffe0;
        int64_t imm = sext(((x >> 5) & 0x7ffff) << 2 | ((x >> 29) & 3), 21);
        unsigned rd = x & 31;
        if (x >> 31) {
            w->adrp |= 1u << rd;
            w->adrp_page[rd] = (pc & ~(uintptr_t)4095) + (uintptr_t)(imm << 12);
        } else {
            hash_data(w, pc + (uintptr_t)imm, 16);
        }
    } else if ((x & 0x3b000000) == 0x18000000) {     /* ldr literal */
        mask = 0x00ffffe0;
        hash_data(w, pc + (uintptr_t)(sext((x & mask) >> 5, 19) * 4), 16);
    } else if (((x & 0x7f800000) == 0x11000000 || (x & 0x3b400000) == 0x39400000) &&
               (w->adrp >> ((x >> 5) & 31) & 1)) {   /* add/ldr :lo12: of an adrp */
        mask = 0x003ffc00;
        unsigned scale = (x & 0x7f800000) == 0x11000000 ? 0 : x >> 30, rt = x & 31;
        uintptr_t at = w->adrp_page[(x >> 5) & 31] + (((x >> 10) & 0xfff) << scale);
        hash_data(w, at, 16);
        if ((x & 0xffc00000) == 0xf9400000) {        /* ldr xt: a GOT slot, if br/blr follows */
            w->ldslot |= 1u << rt;
            w->ldslot_at[rt] = at;
        }
    } else if ((x & 0xfffffc1f) == 0xd65f0000 || x == 0xd65f0bff || x == 0xd65f0fff ||
               (x & 0xffe0001f) == 0xd4200000) {
        in->flow = CB_FLOW_STOP;                     /* ret, retaa/ab, brk */
    } else if ((x & 0xffdffc1f) == 0xd61f0000) {     /* br, blr */
        unsigned rn = (x >> 5) & 31, call = (x >> 21) & 1;
        /* Through a register loaded from a GOT slot (a PLT stub's x17,
         * -fno-plt's call): the slot is resolved as x86-64's is. */
        if (w->ldslot >> rn & 1) {
            in->flow = call ? CB_FLOW_GOTCALL : CB_FLOW_GOTJUMP;
            w->got = w->ldslot_at[rn];
        } else {
            in->flow = call ? CB_FLOW_ICALL : CB_FLOW_IJUMP;
        }
    }
    *word = x & ~mask;
}

/* One instruction at a: hash it, queue or return its successor. */
static int step(struct walk *w, uintptr_t a, struct cb_insn *in, uintptr_t *t)
{
    unsigned char norm[16];
    *t = 0;
    if (w->arch == CB_ARCH_AARCH64) {
        if (a + 4 > w->map->code_hi || (a & 3))
            return -EFAULT;
        uint32_t word;
        memcpy(&word, (const void *)a, 4);
        a64_decode(w, a, &word, in, t);
        memcpy(norm, &word, 4);
    } else {
        int rc = cb_x86_decode((const unsigned char *)a, w->map->code_hi - a, in);
        if (rc < 0)
            return rc;
        memcpy(norm, (const void *)a, (size_t)in->len);
        if (in->rel_len) {
            int64_t d = in->rel_len == 1 ? (int8_t)norm[in->rel_at] : 0;
            if (in->rel_len == 4) {
                int32_t d32;
                memcpy(&d32, norm + in->rel_at, 4);
                d = d32;
            }
            *t = a + (uintptr_t)in->len + (uintptr_t)d;
            memset(norm + in->rel_at, 0, (size_t)in->rel_len);
        }
        if (in->riprel) {
            int32_t d32;
            memcpy(&d32, norm + in->riprel, 4);
            memset(norm + in->riprel, 0, 4);
            /* The displacement is from the end of the instruction. */
            uintptr_t at = a + (uintptr_t)in->len + (uintptr_t)(int64_t)d32;
            if (in->flow == CB_FLOW_GOTJUMP || in->flow == CB_FLOW_GOTCALL)
                w->got = at;
            else
                hash_data(w, at, (size_t)in->opsize);
        }
    }
    cb_sha256_update(&w->h, norm, (size_t)in->len);
    return 0;
}

/* A jump or call through the GOT: code of this object is walked as a
 * direct callee is; another object's is its identity and the symbol
 * (cb_code_got).  A slot that does not resolve gives no hash. */
static int hash_got(struct walk *w, uintptr_t slot)
{
    uintptr_t to;
    cb_sha256_update(&w->h, "G", 1);
    int rc = cb_code_got(w->map, slot, &to, &w->h);
    if (rc <= 0)
        return rc;
    cb_sha256_update(&w->h, "L", 1);
    return target(w, to);
}

/* Decode from a until the block ends (a return, a jump, something seen). */
static int block(struct walk *w, uintptr_t a, int icall_ok)
{
    w->adrp = 0;
    w->ldslot = 0;
    for (;;) {
        int found;
        uint32_t *ix = slot(w, a, &found);
        if (found) {
            cb_sha256_update(&w->h, "J", 1);
            cb_sha256_update(&w->h, ix, sizeof *ix);
            return 0;
        }
        *ix = w->n++;
        if (w->n > CB_CODE_MAX_INSNS)
            return -E2BIG;
        struct cb_insn in;
        uintptr_t t;
        int rc = step(w, a, &in, &t);
        if (rc < 0)
            return rc;
        if (in.flow == CB_FLOW_IJUMP || (in.flow == CB_FLOW_ICALL && !icall_ok))
            return -ENOTSUP;
        if ((in.flow == CB_FLOW_GOTJUMP || in.flow == CB_FLOW_GOTCALL) && (rc = hash_got(w, w->got)) < 0)
            return rc;
        if (in.flow == CB_FLOW_STOP || in.flow == CB_FLOW_GOTJUMP)
            return 0;
        if (in.flow == CB_FLOW_JUMP) {
            if (!in_code(w, t))
                return -EFAULT;
            a = t;
            continue;
        }
        if ((in.flow == CB_FLOW_BRANCH || in.flow == CB_FLOW_CALL) && (rc = target(w, t)) < 0)
            return rc;
        a += (uintptr_t)in.len;
        if (!in_code(w, a))
            return -EFAULT;
    }
}

int cb_code_hash_in(const struct cb_code_map *map, enum cb_code_arch arch, const uintptr_t *roots,
                    size_t nroots, size_t allow_icall, char out[CB_CODE_HASH_LEN + 1])
{
    struct walk w = {.map = map, .arch = arch};
    out[0] = '\0';
    w.key = calloc(SET_SIZE, sizeof *w.key);
    w.idx = calloc(SET_SIZE, sizeof *w.idx);
    w.todo = malloc(CB_CODE_MAX_INSNS * sizeof *w.todo);
    int rc = w.key && w.idx && w.todo ? 0 : -ENOMEM;
    cb_sha256_init(&w.h);
    for (size_t r = 0; r < nroots && rc == 0; r++) {
        if (!in_code(&w, roots[r])) {
            rc = -EFAULT;
            break;
        }
        cb_sha256_update(&w.h, "R", 1);
        rc = block(&w, roots[r], r < allow_icall);
        /* Each root's callees before the next root: the order is the code's. */
        while (rc == 0 && w.ntodo)
            rc = block(&w, w.todo[--w.ntodo], r < allow_icall);
    }
    if (rc == 0) {
        char hex[65];
        cb_sha256_hex(&w.h, hex);
        memcpy(out, hex, CB_CODE_HASH_LEN);
        out[CB_CODE_HASH_LEN] = '\0';
    }
    free(w.key);
    free(w.idx);
    free(w.todo);
    return rc;
}

/* ---- this process's code ------------------------------------------------- */

struct find {
    uintptr_t a;
    struct cb_code_map *map;
    int found;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *vctx)
{
    struct find *f = vctx;
    (void)size;
    int has = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        has |= ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && f->a >= lo && f->a < hi;
    }
    if (!has)
        return 0;
    struct cb_code_map *m = f->map;
    memset(m, 0, sizeof *m);
    m->base = info->dlpi_addr;
    m->name = info->dlpi_name;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            m->dynamic = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_filesz;
        if (!m->obj_lo || lo < m->obj_lo)
            m->obj_lo = lo;
        if (lo + ph->p_memsz > m->obj_hi)
            m->obj_hi = lo + ph->p_memsz;
        if ((ph->p_flags & PF_X) && f->a >= lo && f->a < hi) {
            m->code_lo = lo;
            m->code_hi = hi;
        }
        if (!(ph->p_flags & PF_W) && m->ndata < sizeof m->data_lo / sizeof m->data_lo[0]) {
            m->data_lo[m->ndata] = lo;
            m->data_hi[m->ndata++] = hi;
        }
    }
    f->found = m->code_hi > m->code_lo;
    return 1;
}

int cb_code_hash(const void *const *roots, size_t nroots, size_t allow_icall,
                 char out[CB_CODE_HASH_LEN + 1])
{
    enum cb_code_arch arch;
#if defined(__x86_64__)
    arch = CB_ARCH_X86_64;
#elif defined(__aarch64__)
    arch = CB_ARCH_AARCH64;
#else
    (void)roots;
    (void)nroots;
    (void)allow_icall;
    out[0] = '\0';
    return -ENOTSUP;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
    struct cb_sha256 all;
    cb_sha256_init(&all);
    out[0] = '\0';
    for (size_t r = 0; r < nroots; r++) {
        struct cb_code_map map;
        struct find f = {(uintptr_t)roots[r], &map, 0};
        dl_iterate_phdr(find_object, &f);
        if (!f.found)
            return -EFAULT;
        char one[CB_CODE_HASH_LEN + 1];
        uintptr_t root = (uintptr_t)roots[r];
        int rc = cb_code_hash_in(&map, arch, &root, 1, r < allow_icall, one);
        if (rc < 0)
            return rc;
        cb_sha256_update(&all, one, CB_CODE_HASH_LEN);
    }
    char hex[65];
    cb_sha256_hex(&all, hex);
    memcpy(out, hex, CB_CODE_HASH_LEN);
    out[CB_CODE_HASH_LEN] = '\0';
    return 0;
#endif
}
