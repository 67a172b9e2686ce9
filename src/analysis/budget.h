/* budget.h — the per-packet cycle budget, and the one rule that says which
 * packet's time an operation is charged against.
 *
 * A 64-byte frame occupies 84 bytes of wire time (plus 8 bytes preamble and
 * start delimiter, 12 bytes inter-frame gap), so 10 Gbit/s carries 14.88 Mpps:
 * one packet every 67.2 ns, 201.6 cycles at 3 GHz (the 2016 TXDP thread).
 *
 * The rule (cb_budget_charge), written once and used by every output:
 *  - a per-packet operation (an skb alloc or free, an RX descriptor, an skb
 *    head clear, a call) is charged against the chosen frame (--frame,
 *    default the 64-byte minimum, as the seeds count);
 *  - an operation over S bytes of one packet's data (csum, copy, csum_copy,
 *    xfer) against the larger of the chosen frame and the frame that carries
 *    S bytes of IP packet: S + 14 (Ethernet header) + 4 (FCS);
 *  - a program run on one whole frame of S bytes (xdp: S on the wire, header
 *    and FCS included) against the larger of the chosen frame and S;
 *  - more than one MTU (S > 1500: GSO/GRO sizes) against the wire time of
 *    those bytes cut into MTU frames: S is one IP packet of a super-packet,
 *    its IPv4 + TCP headers (20 + 20, no options) once, so ceil((S - 40) /
 *    1460) segments of 1460 bytes of payload each in a 1518-byte frame. */
#ifndef CB_BUDGET_H
#define CB_BUDGET_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#define CB_WIRE_OVERHEAD 20   /* preamble + SFD (8) + inter-frame gap (12) */
#define CB_ETH_OVERHEAD 18    /* Ethernet header (14) + FCS (4), inside the frame */
#define CB_IP_TCP_HEADERS 40  /* IPv4 (20) + TCP (20, no options) */
#define CB_MTU 1500
#define CB_MSS (CB_MTU - CB_IP_TCP_HEADERS)
#define CB_MIN_FRAME 64
#define CB_MAX_FRAME 16384    /* a jumbo frame's upper end, for --frame */

struct cb_budget {
    double gbps;              /* link rate; 0 when given directly in cycles */
    unsigned frame;           /* the chosen frame: bytes incl. header and FCS */
    double cycles;            /* > 0 when given directly in cycles (per chosen frame) */
    char label[48];           /* "10G/64B" or "201 cycles" */
};

double cb_budget_pps(double gbps, unsigned frame);
double cb_budget_ns(double gbps, unsigned frame);
/* Cycles per packet at core_ghz (for a cycles budget: the cycles). */
double cb_budget_cycles(const struct cb_budget *b, double core_ghz);

/* Parse a link ("10G", "2.5g", "100G", "400Gbit") or a cycle count ("201",
 * "201c", "201cycles").  frame is used for links.  Returns 0, or -EINVAL with
 * a message in err. */
int cb_budget_parse(const char *s, unsigned frame, struct cb_budget *b, struct cb_sb *err);

/* How an operation is charged. */
enum cb_charge_kind {
    CB_CHARGE_PACKET,         /* once per packet: the chosen frame */
    CB_CHARGE_BYTES,          /* over S bytes of one packet: the frame carrying them */
    CB_CHARGE_MTU,            /* over more than one MTU: that many MTU frames */
};

struct cb_charge {
    enum cb_charge_kind kind;
    unsigned frame;           /* bytes of each frame charged, header and FCS included */
    uint64_t frames;          /* how many such frames */
    double wire_bytes;        /* frames x (frame + CB_WIRE_OVERHEAD) */
};

/* 1 when family's size is bytes of one packet's data (its probe record's
 * charge is CB_CHARGE_BY_BYTES); 0 for per-packet operations whose size is
 * something else (an object, a head cleared, descriptors, calls), and for a
 * family this build does not have. */
int cb_budget_packet_data(const char *family);
/* 1 when family's size is a whole frame on the wire (xdp: a program run on
 * one frame): it is charged against the larger of that frame and the
 * chosen one, once. */
int cb_budget_whole_frame(const char *family);
/* The charge of an operation of family over size (unit "B" for bytes; any
 * other unit is counted per packet) at chosen frame bytes: by the family's
 * probe record (per packet when the build does not have it). */
void cb_budget_charge(const char *family, const char *unit, uint64_t size, unsigned frame,
                      struct cb_charge *ch);
/* The same for an operation charged as by says (enum cb_charge_by). */
void cb_budget_charge_as(int by, const char *unit, uint64_t size, unsigned frame,
                         struct cb_charge *ch);
/* The per-packet frame's charge: a step of a path that is charged once. */
void cb_budget_charge_packet(unsigned frame, struct cb_charge *ch);
/* The time of the charged frames at gbps, in ns. */
double cb_budget_charge_ns(const struct cb_charge *ch, double gbps);
/* An operation's share of budget b: ns over the charged frames' time at
 * b->gbps; for a budget in cycles (given per chosen frame, scaled by the
 * charged wire bytes over the chosen frame's), cycles over it.  NAN where
 * the figure it needs is not finite. */
double cb_budget_share(const struct cb_budget *b, const struct cb_charge *ch, double ns,
                       double cycles);
/* "1 frame of 1518 B", "45 MTU frames (1518 B)", for a cell or a tooltip. */
const char *cb_budget_charge_text(const struct cb_charge *ch, char *buf, size_t len);
/* The rule in one paragraph, with the chosen frame, for every output's
 * header (text, HTML, CSV comment-free: JSON member, docs). */
const char *cb_budget_rule(unsigned frame, char *buf, size_t len);

/* Where the operation runs, for "which variant should I ship?": in user
 * space as measured, or in the kernel, where a SIMD variant pays the FPU
 * save (fpu.h) and the +kflags builds stand for the kernel's code. */
enum cb_context { CB_CONTEXT_USER, CB_CONTEXT_KERNEL };
/* "user" or "kernel": 0, or -EINVAL with a message in err. */
int cb_context_parse(const char *s, enum cb_context *ctx, struct cb_sb *err);
const char *cb_context_name(enum cb_context ctx);

#endif
