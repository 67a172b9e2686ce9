/* pktframe.h — the frames `bpf run` gives an XDP program: Ethernet, IPv4
 * and UDP or TCP, as a NIC hands them to the driver (no FCS), with every
 * checksum right, so that a program that parses, checks or rewrites them
 * takes the path it takes on real traffic.
 *
 * frame is the size on the wire as the per-packet budget counts it (the
 * 64-byte minimum, 1518 for a 1500-byte MTU), FCS included: the program
 * sees frame - 4 bytes.  Addresses: 02:00:00:00:00:01 -> :02, 10.0.0.1 ->
 * 10.0.0.2, TTL 64, ports 4000 -> 9 (discard); the payload a fixed
 * pattern. */
#ifndef CB_PKTFRAME_H
#define CB_PKTFRAME_H

#include <stddef.h>
#include <stdint.h>

#define CB_FRAME_FCS 4
#define CB_FRAME_MIN 64
#define CB_FRAME_MAX 1518

enum cb_frame_proto { CB_FRAME_UDP, CB_FRAME_TCP };

/* Write the frame into buf (room bytes): its length (frame - 4), or
 * -EINVAL when frame is outside CB_FRAME_MIN..CB_FRAME_MAX or room too
 * small. */
int cb_frame_build(unsigned char *buf, size_t room, unsigned frame, enum cb_frame_proto proto);

/* An IPv4 frame's header checksum: 1 right, 0 wrong, -1 not an IPv4
 * frame (too short, another ethertype, a bad IHL). */
int cb_frame_ipv4_check(const unsigned char *buf, size_t len);

#endif
