/* codehash_x86.c — the length of one x86-64 instruction, and where its
 * address-dependent fields are (codehash.h).
 *
 * Not a disassembler: the code identity only needs to walk a function's
 * instructions, follow its direct branches and calls, and find the fields a
 * link at another address rewrites (rel8/rel32 targets, RIP-relative
 * displacements).  Decoding follows the SDM's opcode maps for 64-bit mode:
 * legacy and REX prefixes, the one- and two-byte maps, 0F38 and 0F3A, VEX
 * and EVEX.  An opcode it does not know is an error, never a guess: the
 * identity is then unknown, which only costs the placement label. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "harness/codehash.h"

/* One-byte map: what follows the opcode.  M ModRM, I8 imm8, IZ imm16/32
 * (by operand size), X invalid in 64-bit mode. */
enum { M = 1, I8 = 2, IZ = 4, X = 8 };

static unsigned char one_byte(unsigned op)
{
    if (op < 0x40) {
        unsigned lo = op & 7;
        if (op == 0x0f || op == 0x26 || op == 0x2e || op == 0x36 || op == 0x3e)
            return X;   /* escape and prefixes: handled by the caller */
        if (lo <= 3)
            return M;
        if (lo == 4)
            return I8;
        if (lo == 5)
            return IZ;
        return X;       /* push/pop segment, daa...: invalid in 64-bit mode */
    }
    if (op < 0x60)
        return 0;       /* REX (handled before), push/pop reg */
    switch (op) {
    case 0x63: return M;
    case 0x68: return IZ;
    case 0x69: return M | IZ;
    case 0x6a: return I8;
    case 0x6b: return M | I8;
    case 0x6c: case 0x6d: case 0x6e: case 0x6f: return 0;
    case 0x80: case 0x83: case 0xc0: case 0xc1: case 0xc6: return M | I8;
    case 0x81: case 0xc7: return M | IZ;
    case 0xa8: case 0xcd: case 0xe4: case 0xe5: case 0xe6: case 0xe7: return I8;
    case 0xa9: return IZ;
    case 0xc9: case 0xcc: case 0xcf: return 0;
    /* Their immediates and targets are read by the caller: */
    case 0xc2: case 0xc3: case 0xc8: case 0xca: case 0xcb: return 0;
    case 0xe0: case 0xe1: case 0xe2: case 0xe3: case 0xe8: case 0xe9: case 0xeb: return 0;
    case 0xf1: case 0xf4: case 0xf5: return 0;
    case 0xd7: return 0;
    }
    if (op >= 0x84 && op <= 0x8f)
        return M;
    if (op >= 0x90 && op <= 0x9f)
        return op == 0x9a ? X : 0;
    if ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf))
        return 0;
    if (op >= 0xb0 && op <= 0xb7)
        return I8;
    if ((op >= 0x70 && op <= 0x7f) || (op >= 0xa0 && op <= 0xa3) || (op >= 0xb8 && op <= 0xbf))
        return 0;
    if ((op >= 0xd0 && op <= 0xd3) || (op >= 0xd8 && op <= 0xdf) || op == 0xfe || op == 0xff ||
        op == 0xf6 || op == 0xf7)
        return M;
    if (op >= 0xf8 && op <= 0xfd)
        return 0;
    if (op == 0xec || op == 0xed || op == 0xee || op == 0xef)
        return 0;
    return X;
}

/* Two-byte map (0F xx), legacy-encoded. */
static unsigned char two_byte(unsigned op)
{
    switch (op) {
    case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0b: case 0x0e:
    case 0x30: case 0x31: case 0x32: case 0x33: case 0x34: case 0x35: case 0x37:
    case 0x77: case 0xa0: case 0xa1: case 0xa2: case 0xa8: case 0xa9: case 0xaa:
        return 0;
    case 0x0f: case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4: case 0xac: case 0xba:
    case 0xc2: case 0xc4: case 0xc5: case 0xc6:
        return M | I8;
    case 0x04: case 0x0a: case 0x0c: case 0x24: case 0x25: case 0x26: case 0x27: case 0x36:
    case 0x7a: case 0x7b: case 0xa6: case 0xa7:
        return X;
    }
    if (op >= 0xc8 && op <= 0xcf)
        return 0;   /* bswap */
    return M;
}

/* VEX/EVEX maps 1-3 (and EVEX 5/6): every instruction has ModRM except
 * vzeroupper/vzeroall; map 3 always has imm8, map 1 a few. */
static int vex_imm8(unsigned map, unsigned op)
{
    if (map == 3)
        return 1;
    return map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || op == 0xc4 || op == 0xc5 ||
                        op == 0xc6);
}

/* ModRM, SIB and displacement at p (n bytes left).  Returns their length,
 * or -1; *riprel is the displacement's offset from p when RIP-relative. */
static int modrm_len(const unsigned char *p, size_t n, int *riprel)
{
    if (n < 1)
        return -1;
    unsigned mod = p[0] >> 6, rm = p[0] & 7;
    int len = 1;
    if (mod == 3)
        return 1;
    if (rm == 4) {
        if (n < 2)
            return -1;
        len = 2;
        if (mod == 0 && (p[1] & 7) == 5)
            len += 4;
    } else if (mod == 0 && rm == 5) {
        *riprel = 1;
        len += 4;
    }
    len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
    return (size_t)len <= n ? len : -1;
}

/* The kinds of control flow the walk cares about, from the opcode. */
static void flow_one(struct cb_insn *in, unsigned op, const unsigned char *modrm)
{
    unsigned reg = modrm ? (modrm[0] >> 3) & 7 : 0;
    if (op == 0xc3 || op == 0xc2 || op == 0xcb || op == 0xca || op == 0xcf || op == 0xcc ||
        op == 0xf4)
        in->flow = CB_FLOW_STOP;
    else if (op == 0xe8)
        in->flow = CB_FLOW_CALL;
    else if (op == 0xe9 || op == 0xeb)
        in->flow = CB_FLOW_JUMP;
    else if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3))
        in->flow = CB_FLOW_BRANCH;
    else if (op == 0xff && (reg == 2 || reg == 3))
        in->flow = in->riprel ? CB_FLOW_GOTCALL : CB_FLOW_ICALL;
    else if (op == 0xff && (reg == 4 || reg == 5))
        in->flow = in->riprel ? CB_FLOW_GOTJUMP : CB_FLOW_IJUMP;
}

/* Legacy-encoded: prefixes already skipped (pfx bytes, REX.W in rexw).
 * 0, or -EILSEQ for what this decoder does not know. */
static int legacy(const unsigned char *p, size_t n, size_t at, int opsz16, int rexw,
                  struct cb_insn *in)
{
    size_t i = at;
    if (i >= n)
        return -EILSEQ;
    unsigned op = p[i++], flags, map = 0;
    const unsigned char *modrm = NULL;
    if (op == 0x0f) {
        if (i >= n)
            return -EILSEQ;
        unsigned op2 = p[i++];
        if (op2 == 0x38 || op2 == 0x3a) {
            if (i >= n)
                return -EILSEQ;
            i++;
            flags = M | (op2 == 0x3a ? I8 : 0);
        } else if (op2 >= 0x80 && op2 <= 0x8f) {
            in->flow = CB_FLOW_BRANCH;
            in->rel_at = (int)i;
            in->rel_len = 4;
            in->len = (int)i + 4;
            return (size_t)in->len <= n ? 0 : -EILSEQ;
        } else {
            flags = two_byte(op2);
            if (op2 == 0x0b || op2 == 0xb9 || op2 == 0xff)
                in->flow = CB_FLOW_STOP;   /* ud2, ud1, ud0 */
        }
        map = 1;
    } else {
        flags = one_byte(op);
    }
    if (flags & X)
        return -EILSEQ;
    if (!map && (op == 0xe8 || op == 0xe9)) {
        in->rel_at = (int)i;
        in->rel_len = 4;
        i += 4;
    } else if (!map && ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3) || op == 0xeb)) {
        in->rel_at = (int)i;
        in->rel_len = 1;
        i += 1;
    } else if (!map && op >= 0xa0 && op <= 0xa3) {
        i += 8;   /* moffs64 */
    } else if (!map && op >= 0xb8 && op <= 0xbf) {
        i += rexw ? 8 : opsz16 ? 2 : 4;
    } else if (!map && (op == 0xc2 || op == 0xca)) {
        i += 2;
    } else if (!map && op == 0xc8) {
        i += 3;
    }
    if (flags & M) {
        int rip = 0, l = modrm_len(p + i, n - i, &rip);
        if (l < 0)
            return -EILSEQ;
        modrm = p + i;
        if (rip)
            in->riprel = (int)i + 1;
        i += (size_t)l;
        unsigned reg = (modrm[0] >> 3) & 7;
        if (!map && (op == 0xf6 || op == 0xf7) && reg <= 1)
            flags |= op == 0xf6 ? I8 : IZ;
    }
    i += (flags & I8) ? 1 : 0;
    i += (flags & IZ) ? (opsz16 ? 2 : 4) : 0;
    if (i > n)
        return -EILSEQ;
    in->len = (int)i;
    if (!map)
        flow_one(in, op, modrm);
    in->opsize = map ? 16 : rexw ? 8 : 4;
    if (!map && op == 0x8d)
        in->opsize = 64;   /* lea of a table: its first line */
    return 0;
}

/* VEX (C4, C5) or EVEX (62), at p + at. */
static int vex(const unsigned char *p, size_t n, size_t at, struct cb_insn *in)
{
    size_t i = at;
    unsigned kind = p[i], map, vl;
    if (kind == 0xc5) {
        if (i + 2 >= n)
            return -EILSEQ;
        map = 1;
        vl = (p[i + 1] >> 2) & 1;
        i += 2;
    } else if (kind == 0xc4) {
        if (i + 3 >= n)
            return -EILSEQ;
        map = p[i + 1] & 0x1f;
        vl = (p[i + 2] >> 2) & 1;
        i += 3;
    } else {
        if (i + 4 >= n)
            return -EILSEQ;
        map = p[i + 1] & 7;
        vl = (p[i + 3] >> 5) & 3;
        i += 4;
    }
    if (map < 1 || (map > 3 && !(kind == 0x62 && (map == 5 || map == 6))))
        return -EILSEQ;
    unsigned op = p[i++];
    if (!(map == 1 && op == 0x77)) {   /* vzeroupper/vzeroall: no ModRM */
        int rip = 0, l = modrm_len(p + i, n - i, &rip);
        if (l < 0)
            return -EILSEQ;
        if (rip)
            in->riprel = (int)i + 1;
        i += (size_t)l;
    }
    i += vex_imm8(map, op);
    if (i > n)
        return -EILSEQ;
    in->len = (int)i;
    in->opsize = 16 << vl;
    return 0;
}

int cb_x86_decode(const unsigned char *p, size_t n, struct cb_insn *in)
{
    memset(in, 0, sizeof *in);
    size_t i = 0;
    int opsz16 = 0, rexw = 0;
    for (; i < n && i < 14; i++) {
        unsigned b = p[i];
        if (b == 0x66)
            opsz16 = 1;
        else if (!(b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 ||
                   b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65))
            break;
    }
    if (i < n && (p[i] & 0xf0) == 0x40) {
        rexw = (p[i] >> 3) & 1;
        i++;
    }
    if (i >= n)
        return -EILSEQ;
    int rc = (p[i] == 0xc4 || p[i] == 0xc5 || p[i] == 0x62) ? vex(p, n, i, in)
                                                            : legacy(p, n, i, opsz16, rexw, in);
    if (rc == 0 && in->len > 15)
        return -EILSEQ;
    return rc;
}
