/* codehash.h — what identifies a case's measured code, apart from where it sits.
 *
 * Two builds that differ only in code a case never runs can time it
 * differently: the variant's code is the same, its address is not.  So
 * every case stores two things: a hash of the code it timed, normalised so that the
 * same code linked elsewhere hashes alike, and the entry's address mod 4096
 * (mod 64 is its low six bits).  compare calls a change between sides whose
 * code hashes match "placement".
 *
 * The hash is of machine code as it is in memory, not of source: a source
 * and flags hash misses a compiler upgrade and a changed header's inline
 * function, and says nothing for a plugin.  The walk starts at the roots
 * (the probe's timed loop and the variant function), follows direct jumps,
 * branches and calls (their callees are measured code too), and hashes each
 * instruction with what a link rewrites masked: rel8/rel32 branch targets
 * (the walk's order stands in for them) and RIP-relative displacements
 * (with the first bytes of read-only data they name hashed instead, so that
 * a changed constant table is still a change).  A jump or call through the
 * GOT (a PLT stub, -fno-plt's call; on aarch64 a br or blr of a register
 * loaded from an adrp's page) is resolved from the object's dynamic
 * relocations (codehash_elf.c): code of the same object is walked like a
 * direct callee, whether the slot is bound yet or not (lazy binding); another
 * object's is hashed as its build-id, the symbol and where it resolved (a
 * changed libc or an LD_PRELOAD'd memcpy is a change of code, glibc's own is
 * the same code in both builds).  An indirect jump elsewhere (a switch's
 * table), an indirect call in the variant or its callees, a GOT slot that
 * does not resolve, an opcode the decoder does not know, or a walk past its
 * limits (CB_CODE_MAX_INSNS, callees included) gives no hash: "unknown" is
 * never "the same". */
#ifndef CB_CODEHASH_H
#define CB_CODEHASH_H

#include <stddef.h>
#include <stdint.h>

#define CB_CODE_HASH_LEN 16          /* hex digits kept of the SHA-256 */
#define CB_CODE_MAX_INSNS 8192       /* a walk longer than this gives no hash */

enum cb_code_arch { CB_ARCH_X86_64 = 1, CB_ARCH_AARCH64 = 2 };

/* Where the walk may read: executable bytes it may follow into, and
 * read-only data a RIP-relative (or adrp) operand's bytes are hashed from. */
struct cb_code_map {
    uintptr_t code_lo, code_hi;
    uintptr_t data_lo[8], data_hi[8];
    size_t ndata;
    /* The loaded object that holds the code: its extent, load bias,
     * dynamic section and name (dl_iterate_phdr's), for resolving a jump
     * or call through its GOT (cb_code_got).  dynamic 0 for bytes that are
     * not loaded code (the tests' arrays): such a jump gives no hash. */
    uintptr_t obj_lo, obj_hi;
    uintptr_t base, dynamic;
    const char *name;
};

enum cb_code_flow {
    CB_FLOW_NEXT = 0,                /* falls through */
    CB_FLOW_BRANCH,                  /* conditional: target and fall-through */
    CB_FLOW_JUMP,                    /* unconditional direct: target only */
    CB_FLOW_CALL,                    /* direct call: target and fall-through */
    CB_FLOW_ICALL,                   /* indirect call: fall-through */
    CB_FLOW_IJUMP,                   /* indirect jump (a switch's table): no hash */
    CB_FLOW_STOP,                    /* return, trap */
    CB_FLOW_GOTJUMP,                 /* jmp *slot(%rip): a PLT stub */
    CB_FLOW_GOTCALL,                 /* call *slot(%rip): -fno-plt's call */
};

/* One decoded instruction: its length, its flow, where its direct target's
 * displacement is (rel_at, rel_len bytes; 0 none) and its RIP-relative
 * displacement (riprel: offset of the disp32, 0 none), and the bytes its
 * memory operand is taken to cover (for hashing the data it names). */
struct cb_insn {
    int len;
    enum cb_code_flow flow;
    int rel_at, rel_len;
    int riprel;
    int opsize;
};

/* x86-64: decode the instruction at p (n bytes readable).  0, or -EILSEQ
 * for bytes this decoder does not know. */
int cb_x86_decode(const unsigned char *p, size_t n, struct cb_insn *in);

/* Hash the code reachable from roots[0..nroots) inside map, for arch.
 * Indirect calls are allowed in the first allow_icall roots only (the
 * probe's loop calls its variant through a pointer; the variant is a root
 * of its own).  0 with CB_CODE_HASH_LEN hex digits in out; -EILSEQ (an
 * unknown opcode), -ENOTSUP (an indirect jump or call where none may be),
 * -E2BIG (past CB_CODE_MAX_INSNS), -EFAULT (a target outside the map). */
int cb_code_hash_in(const struct cb_code_map *map, enum cb_code_arch arch, const uintptr_t *roots,
                    size_t nroots, size_t allow_icall, char out[CB_CODE_HASH_LEN + 1]);

/* The same for this process's own code, each root in the map of the loaded
 * object that holds it (dl_iterate_phdr: a plugin's variant and the
 * built-in loop that calls it are in two objects), the arch this binary's;
 * the result is the hash of the roots' hashes in order.  -ENOTSUP on
 * another architecture. */
int cb_code_hash(const void *const *roots, size_t nroots, size_t allow_icall,
                 char out[CB_CODE_HASH_LEN + 1]);

struct cb_sha256;

/* Where a jump or call through the GOT slot at slot leads, for map's
 * object: 1 with *to when it is code of the object (the walk follows it),
 * 0 when it is another object's (its build-id or file sha256, the symbol
 * and its offset there are added to h), -ENOTSUP when the slot has no
 * dynamic relocation or its symbol does not resolve. */
int cb_code_got(const struct cb_code_map *map, uintptr_t slot, uintptr_t *to, struct cb_sha256 *h);

#endif
