/* pkt_budget.c — link rate and frame size to packets/s, ns and cycles, and the
 * one rule that charges an operation to a packet (budget.h). */
#include "analysis/budget.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness/probe.h"

double cb_budget_pps(double gbps, unsigned frame)
{
    return gbps * 1e9 / (8.0 * (double)(frame + CB_WIRE_OVERHEAD));
}

double cb_budget_ns(double gbps, unsigned frame)
{
    return 1e9 / cb_budget_pps(gbps, frame);
}

double cb_budget_cycles(const struct cb_budget *b, double core_ghz)
{
    if (b->cycles > 0)
        return b->cycles;
    return cb_budget_ns(b->gbps, b->frame) * core_ghz;
}

int cb_budget_parse(const char *s, unsigned frame, struct cb_budget *b, struct cb_sb *err)
{
    memset(b, 0, sizeof *b);
    char *end;
    if (!s || !*s) {
        cb_sb_setf(err, "empty budget: give a link rate like 10G, 40G, 100G, or a cycle count like 201");
        return -EINVAL;
    }
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v <= 0 || v > 1e6) {
        cb_sb_setf(err, "budget '%s' is not a link rate or cycle count: use e.g. 10G, 40G, 100G, or 201", s);
        return -EINVAL;
    }
    if (strcasecmp(end, "g") == 0 || strcasecmp(end, "gbit") == 0 || strcasecmp(end, "gbps") == 0 ||
        strcasecmp(end, "gbit/s") == 0) {
        if (frame < CB_MIN_FRAME || frame > CB_MAX_FRAME) {
            cb_sb_setf(err, "frame size %u is outside 64 (Ethernet's minimum) to %d bytes", frame, CB_MAX_FRAME);
            return -EINVAL;
        }
        b->gbps = v;
        b->frame = frame;
        snprintf(b->label, sizeof b->label, "%gG/%uB", v, frame);
        return 0;
    }
    if (*end == '\0' || strcasecmp(end, "c") == 0 || strcasecmp(end, "cycles") == 0) {
        b->cycles = v;
        b->frame = frame < CB_MIN_FRAME ? CB_MIN_FRAME : frame;
        snprintf(b->label, sizeof b->label, "%g cycles", v);
        return 0;
    }
    cb_sb_setf(err, "budget '%s': unknown unit '%s': use G for a link rate (10G) or a plain cycle count (201)", s, end);
    return -EINVAL;
}

/* How family's operations are charged: its probe record says (per packet
 * for a family this build does not have, such as an in-kernel "fpu"). */
static int charge_by(const char *family)
{
    const struct cb_probe *p = family ? cb_probe_find(family) : NULL;
    return p ? (int)p->charge : CB_CHARGE_BY_PACKET;
}

int cb_budget_packet_data(const char *family)
{
    return charge_by(family) == CB_CHARGE_BY_BYTES;
}

void cb_budget_charge_packet(unsigned frame, struct cb_charge *ch)
{
    *ch = (struct cb_charge){CB_CHARGE_PACKET, frame, 1, (double)frame + CB_WIRE_OVERHEAD};
}

int cb_budget_whole_frame(const char *family)
{
    /* An XDP program (bpf run) is given one whole frame: its size is the
     * frame's on the wire, header and FCS included. */
    return family && strcmp(family, "xdp") == 0;
}

void cb_budget_charge(const char *family, const char *unit, uint64_t size, unsigned frame,
                      struct cb_charge *ch)
{
    if (unit && strcmp(unit, "B") == 0 && cb_budget_whole_frame(family)) {
        cb_budget_charge_packet(size > frame ? (unsigned)size : frame, ch);
        return;
    }
    cb_budget_charge_as(charge_by(family), unit, size, frame, ch);
}

void cb_budget_charge_as(int by, const char *unit, uint64_t size, unsigned frame,
                         struct cb_charge *ch)
{
    int bytes = unit && strcmp(unit, "B") == 0;
    if (bytes && size > CB_MTU && by != CB_CHARGE_BY_OBJECT) {
        /* One IP packet of a GSO/GRO super-packet: its headers once, its
         * payload cut into MSS segments, each a full MTU frame on the wire. */
        uint64_t payload = size > CB_IP_TCP_HEADERS ? size - CB_IP_TCP_HEADERS : 1;
        uint64_t n = (payload + CB_MSS - 1) / CB_MSS;
        unsigned f = CB_MTU + CB_ETH_OVERHEAD;
        *ch = (struct cb_charge){CB_CHARGE_MTU, f, n, (double)n * (f + CB_WIRE_OVERHEAD)};
        return;
    }
    if (bytes && by == CB_CHARGE_BY_BYTES && size + CB_ETH_OVERHEAD > frame) {
        unsigned f = (unsigned)size + CB_ETH_OVERHEAD;
        *ch = (struct cb_charge){CB_CHARGE_BYTES, f, 1, (double)f + CB_WIRE_OVERHEAD};
        return;
    }
    cb_budget_charge_packet(frame, ch);
    if (bytes && by == CB_CHARGE_BY_BYTES)
        ch->kind = CB_CHARGE_BYTES; /* carried by the chosen frame */
}

double cb_budget_charge_ns(const struct cb_charge *ch, double gbps)
{
    return gbps > 0 ? ch->wire_bytes * 8.0 / gbps : NAN;
}

double cb_budget_share(const struct cb_budget *b, const struct cb_charge *ch, double ns,
                       double cycles)
{
    if (b->cycles > 0) {
        double per = b->cycles * ch->wire_bytes / ((double)b->frame + CB_WIRE_OVERHEAD);
        return isfinite(cycles) ? cycles / per : NAN;
    }
    double t = cb_budget_charge_ns(ch, b->gbps);
    return isfinite(ns) && t > 0 ? ns / t : NAN;
}

const char *cb_budget_charge_text(const struct cb_charge *ch, char *buf, size_t len)
{
    if (ch->kind == CB_CHARGE_MTU)
        snprintf(buf, len, "%" PRIu64 " MTU frames (%u B)", ch->frames, ch->frame);
    else
        snprintf(buf, len, "1 frame of %u B", ch->frame);
    return buf;
}

const char *cb_budget_rule(unsigned frame, char *buf, size_t len)
{
    /* The families charged by their bytes, as their probe records say. */
    char fams[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < cb_probe_count() && at < sizeof fams; i++) {
        const struct cb_probe *p = cb_probe_at(i);
        if (p->charge == CB_CHARGE_BY_BYTES)
            at += (size_t)snprintf(fams + at, sizeof fams - at, "%s%s", at ? ", " : "", p->name);
    }
    snprintf(buf, len,
             "budget %% = ns/op over the wire time of the packet the operation is charged to: a "
             "per-packet operation (skb alloc or free, RX descriptor, skb head clear, call) to the "
             "chosen %u-byte frame; an operation over S bytes of one packet (%s) to the larger of that frame and S + %d (Ethernet header 14, FCS "
             "4); over S > %d bytes (GSO/GRO) to ceil((S - %d) / %d) %d-byte MTU frames (IPv4 + "
             "TCP headers %d once); an XDP program run on one S-byte frame (xdp) to the larger "
             "of the chosen frame and S; each frame + %d bytes on the wire (preamble 8, gap 12)",
             frame, fams, CB_ETH_OVERHEAD, CB_MTU, CB_IP_TCP_HEADERS, CB_MSS, CB_MTU + CB_ETH_OVERHEAD,
             CB_IP_TCP_HEADERS, CB_WIRE_OVERHEAD);
    return buf;
}

int cb_context_parse(const char *s, enum cb_context *ctx, struct cb_sb *err)
{
    if (s && strcmp(s, "user") == 0)
        *ctx = CB_CONTEXT_USER;
    else if (s && strcmp(s, "kernel") == 0)
        *ctx = CB_CONTEXT_KERNEL;
    else {
        cb_sb_setf(err, "--context '%s': give 'user' (as measured) or 'kernel' (SIMD variants "
                 "pay the FPU save, +kflags builds stand for the kernel's code)", s ? s : "");
        return -EINVAL;
    }
    return 0;
}

const char *cb_context_name(enum cb_context ctx)
{
    return ctx == CB_CONTEXT_KERNEL ? "kernel" : "user";
}
