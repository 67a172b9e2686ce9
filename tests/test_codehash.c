/* test_codehash.c — the code identity (codehash.h): the same code hashes alike
 * wherever it is linked, a changed instruction, callee or constant does
 * not; the decoder's lengths against encodings read off objdump.
 *
 * The functions are laid out by hand in byte arrays (x86-64 and aarch64
 * encodings, whichever machine runs the test: the walk only reads them),
 * once at some offsets and once at others with every displacement
 * recomputed, as a link at another address would. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <cyclebudget/cyclebudget.h>

#include "harness/codehash.h"
#include "harness/plugin.h"
#include "harness/probe.h"
#include "tap.h"

static unsigned char data_a[64], data_b[64];

struct x86_fn {
    size_t f, g;              /* offsets of F and its callee G in the array */
    unsigned char add_op;     /* 0x01 add, 0x29 sub */
    unsigned char g_modrm;    /* xor eax,eax (c0) or xor edx,edx (d2) */
    int ijump;                /* F ends in jmp *%rax instead of nop; nop; ret */
};

static void put32(unsigned char *p, int64_t v)
{
    int32_t x = (int32_t)v;
    memcpy(p, &x, 4);
}

/* F: lea D(%rip),%rax; call G; add %rax,%rax; je +2; nop; nop; ret
 * G: xor %eax,%eax; ret */
static void lay_x86(unsigned char *code, size_t len, const unsigned char *data, struct x86_fn s)
{
    memset(code, 0xcc, len);
    unsigned char *f = code + s.f, *g = code + s.g;
    static const unsigned char body[] = {0x48, 0x8d, 0x05, 0, 0, 0, 0, 0xe8, 0, 0, 0, 0,
                                         0x48, 0x01, 0xc0, 0x74, 0x02, 0x90, 0x90, 0xc3};
    memcpy(f, body, sizeof body);
    put32(f + 3, (intptr_t)data - (intptr_t)(f + 7));
    put32(f + 8, (intptr_t)g - (intptr_t)(f + 12));
    f[13] = s.add_op;
    if (s.ijump) {
        f[17] = 0xff;
        f[18] = 0xe0;
    }
    g[0] = 0x31;
    g[1] = s.g_modrm;
    g[2] = 0xc3;
}

static int hash_x86(const unsigned char *code, size_t len, const unsigned char *data, size_t f,
                    char out[CB_CODE_HASH_LEN + 1])
{
    struct cb_code_map m = {.code_lo = (uintptr_t)code, .code_hi = (uintptr_t)code + len,
                            .data_lo = {(uintptr_t)data}, .data_hi = {(uintptr_t)data + 64},
                            .ndata = 1};
    uintptr_t root = (uintptr_t)code + f;
    return cb_code_hash_in(&m, CB_ARCH_X86_64, &root, 1, 0, out);
}

static void x86_layouts(void)
{
    static unsigned char a[256], b[256];
    char ha[17], ha2[17], hb[17], hx[17];
    memset(data_a, 0x5a, sizeof data_a);
    memset(data_b, 0x5a, sizeof data_b);
    struct x86_fn sa = {0x10, 0x80, 0x01, 0xc0, 0}, sb = {0x40, 0x20, 0x01, 0xc0, 0};

    lay_x86(a, sizeof a, data_a, sa);
    is_int(hash_x86(a, sizeof a, data_a, sa.f, ha), 0, "x86: F and its callee are walked");
    is_int((int)strlen(ha), CB_CODE_HASH_LEN, "x86: the hash has %d hex digits", CB_CODE_HASH_LEN);
    hash_x86(a, sizeof a, data_a, sa.f, ha2);
    is_str(ha2, ha, "x86: the same bytes hash alike");

    lay_x86(b, sizeof b, data_b, sb);
    ok(memcmp(a + sa.f, b + sb.f, 20) != 0, "x86: moved F's bytes differ (call and lea displacements)");
    is_int(hash_x86(b, sizeof b, data_b, sb.f, hb), 0, "x86: moved F is walked");
    is_str(hb, ha, "x86: F moved, its callee before it and its data elsewhere: the same hash");

    struct x86_fn s = sa;
    s.add_op = 0x29;
    lay_x86(a, sizeof a, data_a, s);
    hash_x86(a, sizeof a, data_a, s.f, hx);
    ok(strcmp(hx, ha) != 0, "x86: add -> sub in F changes the hash");

    s = sa;
    s.g_modrm = 0xd2;
    lay_x86(a, sizeof a, data_a, s);
    hash_x86(a, sizeof a, data_a, s.f, hx);
    ok(strcmp(hx, ha) != 0, "x86: a changed instruction in the callee changes the hash");

    lay_x86(a, sizeof a, data_a, sa);
    data_a[3] = 0x5b;
    hash_x86(a, sizeof a, data_a, sa.f, hx);
    ok(strcmp(hx, ha) != 0, "x86: a changed constant that F's lea names changes the hash");
    data_a[3] = 0x5a;

    s = sa;
    s.ijump = 1;
    lay_x86(a, sizeof a, data_a, s);
    is_int(hash_x86(a, sizeof a, data_a, s.f, hx), -ENOTSUP, "x86: an indirect jump gives no hash");
    is_str(hx, "", "x86: and the hash is empty");

    lay_x86(a, sizeof a, data_a, sa);
    a[sa.f + 17] = 0x06;   /* push %es: invalid in 64-bit mode */
    is_int(hash_x86(a, sizeof a, data_a, sa.f, hx), -EILSEQ, "x86: an unknown opcode gives no hash");

    /* jmp *D(%rip): a PLT stub's jump through its GOT slot, in bytes that
     * are no loaded object (no dynamic relocation names the slot). */
    lay_x86(a, sizeof a, data_a, sa);
    memcpy(a + sa.f + 12, "\xff\x25", 2);
    put32(a + sa.f + 14, (intptr_t)data_a - (intptr_t)(a + sa.f + 18));
    is_int(hash_x86(a, sizeof a, data_a, sa.f, hx), -ENOTSUP,
           "x86: a jump through a slot that does not resolve gives no hash, never \"the same\"");

    lay_x86(a, sizeof a, data_a, sa);
    put32(a + sa.f + 8, 4096);
    is_int(hash_x86(a, sizeof a, data_a, sa.f, hx), -EFAULT, "x86: a call out of the map gives no hash");
}

/* Lengths and fields read off objdump -d for these encodings. */
static void x86_decoder(void)
{
    static const struct {
        const char *what;
        unsigned char b[15];
        int len, rel_at, rel_len, riprel;
    } t[] = {
        {"vbroadcastss 0x0(%rip),%ymm0", {0xc4, 0xe2, 0x7d, 0x18, 0x05, 0, 0, 0, 0}, 9, 0, 0, 5},
        {"vmovups 0x0(%rip),%zmm0", {0x62, 0xf1, 0x7c, 0x48, 0x10, 0x05, 0, 0, 0, 0}, 10, 0, 0, 6},
        {"vpaddq 0x40(%rax),%zmm1,%zmm2 (disp8*64)", {0x62, 0xf1, 0xf5, 0x48, 0xd4, 0x50, 0x01}, 7, 0, 0, 0},
        {"palignr $0x8,%xmm1,%xmm0", {0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08}, 6, 0, 0, 0},
        {"movabs $imm64,%rax", {0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}, 10, 0, 0, 0},
        {"test $imm32,%ecx", {0xf7, 0xc1, 1, 2, 3, 4}, 6, 0, 0, 0},
        {"test $imm16,%cx", {0x66, 0xf7, 0xc1, 1, 2}, 5, 0, 0, 0},
        {"jne rel32", {0x0f, 0x85, 1, 2, 3, 4}, 6, 2, 4, 0},
        {"jrcxz rel8", {0xe3, 0x10}, 2, 1, 1, 0},
        {"adc 0x8(%rsi,%rcx,8),%rax", {0x48, 0x13, 0x44, 0xce, 0x08}, 5, 0, 0, 0},
        {"endbr64", {0xf3, 0x0f, 0x1e, 0xfa}, 4, 0, 0, 0},
        {"vzeroupper", {0xc5, 0xf8, 0x77}, 3, 0, 0, 0},
        {"nopw 0x0(%rax,%rax,1)", {0x66, 0x0f, 0x1f, 0x44, 0, 0}, 6, 0, 0, 0},
        {"rep movsb", {0xf3, 0xa4}, 2, 0, 0, 0},
        {"adox %rdx,%rax", {0xf3, 0x48, 0x0f, 0x38, 0xf6, 0xc2}, 6, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct cb_insn in;
        int rc = cb_x86_decode(t[i].b, sizeof t[i].b, &in);
        ok(rc == 0 && in.len == t[i].len && in.rel_at == t[i].rel_at && in.rel_len == t[i].rel_len &&
               in.riprel == t[i].riprel,
           "x86 decode %s: %d bytes (got rc %d, %d bytes, rel %d/%d, rip %d)", t[i].what, t[i].len,
           rc, in.len, in.rel_at, in.rel_len, in.riprel);
    }
}

/* aarch64 F: adrp x0, D; add x0, x0, :lo12:D; bl G; ret.  G: mov x0, #k; ret */
static void lay_a64(uint32_t *code, size_t n, const unsigned char *data, size_t f, size_t g, unsigned k)
{
    for (size_t i = 0; i < n; i++)
        code[i] = 0xd4200000;   /* brk #0 */
    uintptr_t pc = (uintptr_t)&code[f], d = (uintptr_t)data;
    int64_t page = (int64_t)(d >> 12) - (int64_t)(pc >> 12);
    code[f] = 0x90000000u | (uint32_t)(page & 3) << 29 | (uint32_t)((page >> 2) & 0x7ffff) << 5;
    code[f + 1] = 0x91000000u | (uint32_t)(d & 4095) << 10;
    code[f + 2] = 0x94000000u | (uint32_t)(((int64_t)g - (int64_t)(f + 2)) & 0x3ffffff);
    code[f + 3] = 0xd65f03c0;
    code[g] = 0xd2800000u | k << 5;
    code[g + 1] = 0xd65f03c0;
}

static int hash_a64(const uint32_t *code, size_t n, const unsigned char *data, size_t f, char out[17])
{
    struct cb_code_map m = {.code_lo = (uintptr_t)code, .code_hi = (uintptr_t)(code + n),
                            .data_lo = {(uintptr_t)data}, .data_hi = {(uintptr_t)data + 64},
                            .ndata = 1};
    uintptr_t root = (uintptr_t)&code[f];
    return cb_code_hash_in(&m, CB_ARCH_AARCH64, &root, 1, 0, out);
}

static void a64_layouts(void)
{
    static uint32_t a[64], b[64];
    char ha[17], hb[17], hx[17];
    lay_a64(a, 64, data_a, 4, 40, 0);
    is_int(hash_a64(a, 64, data_a, 4, ha), 0, "aarch64: F and its callee are walked");
    lay_a64(b, 64, data_b, 30, 2, 0);
    hash_a64(b, 64, data_b, 30, hb);
    is_str(hb, ha, "aarch64: F moved (bl, adrp and :lo12: rewritten): the same hash");
    lay_a64(a, 64, data_a, 4, 40, 1);
    hash_a64(a, 64, data_a, 4, hx);
    ok(strcmp(hx, ha) != 0, "aarch64: mov x0, #0 -> #1 in the callee changes the hash");

    /* A PLT stub: adrp x16, D; ldr x17, [x16, :lo12:D]; add x16, x16,
     * :lo12:D; br x17, its slot in no loaded object: unresolved, no hash. */
    lay_a64(a, 64, data_a, 4, 40, 0);
    uint32_t adrp = a[4];
    a[4] = adrp | 16;
    a[5] = 0xf9400000u | (uint32_t)(((uintptr_t)data_a & 4095) / 8) << 10 | 16u << 5 | 17u;
    a[6] = 0x91000000u | (uint32_t)((uintptr_t)data_a & 4095) << 10 | 16u << 5 | 16u;
    a[7] = 0xd61f0220;
    is_int(hash_a64(a, 64, data_a, 4, hx), -ENOTSUP,
           "aarch64: br x17 through a GOT slot that does not resolve gives no hash");
    a[7] = 0xd63f0220;
    a[8] = 0xd65f03c0;
    is_int(hash_a64(a, 64, data_a, 4, hx), -ENOTSUP, "aarch64: blr x17 likewise");
    lay_a64(a, 64, data_a, 4, 40, 0);
    a[6] = 0xd61f0000;
    is_int(hash_a64(a, 64, data_a, 4, hx), -ENOTSUP, "aarch64: br x0 (a switch's table) gives no hash");
}

/* This binary's own variants, hashed where they were linked. */
static void builtin(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    const struct cb_probe *p = cb_probe_find("csum");
    const struct cb_variant *r = p ? cb_variant_find(p, "ref") : NULL;
    const struct cb_variant *o = p ? cb_variant_find(p, "adc-1chain") : NULL;
    if (!o && p)
        o = cb_variant_find(p, "do-csum");
    char h1[17], h2[17], h3[17];
    unsigned addr;
    if (!r || !o) {
        ok(0, "csum has ref and a second variant");
        return;
    }
    int rc = cb_variant_code_id(p, r, h1, &addr);
#ifdef __SANITIZE_ADDRESS__
    /* A sanitizer build calls its checks between loads: the walk outgrows
     * its bounds (-E2BIG) and the hash is unknown, never "the same", which
     * is codehash.c's promise; placement.test skips likewise. */
    if (rc != 0) {
        printf("ok %d # SKIP built-in code ids: a sanitizer build's instrumented csum/ref has no hash (rc %d)\n",
               ++tap_n, rc);
        return;
    }
#endif
    is_int(rc, 0, "csum/ref's code is walked in this binary");
    is_uint(addr, (uintptr_t)r->fn & 4095, "its address mod 4096 is its entry's");
    cb_variant_code_id(p, r, h2, &addr);
    is_str(h2, h1, "csum/ref hashes alike twice");
    is_int(cb_variant_code_id(p, o, h3, &addr), 0, "csum/%s's code is walked", o->name);
    ok(strcmp(h1, h3) != 0, "csum/ref and csum/%s differ", o->name);
    const struct cb_probe *s = cb_probe_find("slab");
    if (s && s->nvariants)
        is_int(cb_variant_code_id(s, &s->variants[0], h1, &addr), -ENOTSUP,
               "slab's variants are a model's parameters, not code: no hash");
#else
    printf("ok %d # SKIP built-in code ids: this architecture's code is not decoded\n", ++tap_n);
#endif
}

/* codehash.test's check: every instruction objdump -d -w printed, as lines
 * of hex bytes (one instruction a line), decodes to that length. */
static void objdump_lengths(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[256];
    size_t n = 0, bad = 0;
    if (!f) {
        ok(0, "cannot read %s", path);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        unsigned char b[16];
        int len = 0, k;
        for (char *p = line; len < 16 && sscanf(p, "%2hhx%n", &b[len], &k) == 1; p += k)
            len++;
        if (!len)
            continue;
        struct cb_insn in;
        n++;
        if (cb_x86_decode(b, (size_t)len, &in) < 0 || in.len != len) {
            if (++bad <= 10)
                printf("# %d bytes by objdump, decoded %d: %s", len, in.len, line);
        }
    }
    fclose(f);
    ok(n > 1000 && bad == 0, "%zu instructions objdump printed decode to its lengths (%zu do not)", n, bad);
}

/* Any word of the writable segments of the object holding a that holds
 * def: a GOT slot already bound to it. */
struct scan {
    uintptr_t a, def;
    int bound;
};

static int scan_slots(struct dl_phdr_info *info, size_t size, void *vs)
{
    struct scan *sc = vs;
    int mine = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        mine |= ph->p_type == PT_LOAD && sc->a >= lo && sc->a < lo + ph->p_memsz;
    }
    for (int i = 0; mine && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const uintptr_t *w = (const uintptr_t *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
            for (size_t k = 0; k < ph->p_filesz / sizeof *w; k++)
                sc->bound |= w[k] == sc->def;
    }
    return mine;
}

/* codehash.test's lazy-binding check: the hash of a plugin's first
 * variant, dlopen'd RTLD_LAZY so that its PLT slots still lead back into
 * the PLT (cyclebudget run binds them at load), printed on one line:
 * the hex digits, or "unknown RC".  "unbound" or "bound" follows: whether
 * the GOT slot of the symbol named by the second argument still led into
 * the plugin, not to the symbol, when the hash was taken. */
static int lazy(const char *path, const char *sym)
{
    void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    const struct cb_plugin *(*entry)(void) = NULL;
    if (h)
        *(void **)&entry = dlsym(h, "cyclebudget_plugin");
    if (!entry) {
        printf("cannot load %s: %s\n", path, dlerror());
        return 1;
    }
    const void *root = entry()->variants[0].fn, *def = dlsym(h, sym);
    char out[CB_CODE_HASH_LEN + 1];
    int rc = cb_code_hash(&root, 1, 0, out);
    struct scan sc = {(uintptr_t)root, (uintptr_t)def, 0};
    if (def)
        dl_iterate_phdr(scan_slots, &sc);
    int bound = sc.bound;
    if (rc == 0)
        printf("%s %s\n", out, bound ? "bound" : "unbound");
    else
        printf("unknown %d %s\n", rc, bound ? "bound" : "unbound");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && strcmp(argv[1], "--lazy") == 0)
        return lazy(argv[2], argv[3]);
    if (argc > 1) {
        objdump_lengths(argv[1]);
        return tap_done();
    }
    x86_layouts();
    x86_decoder();
    a64_layouts();
    builtin();
    return tap_done();
}
