/* placement.h — force-included into every probe object (mk/probes.am): the
 * object's code starts on a 4 KiB boundary.
 *
 * Why: an edit to src/report/run_load.c alone can make
 * csum/kernel-2023/20/warm +10.0% [+9.99, +10.03] slower, 3 runs against 3.
 * The variant's machine code was the same; the link had moved it, and a
 * loop's place against the front end's 32- and 64-byte fetch windows, the
 * uop cache's sets and the branch predictor's indexing moved with it.  With
 * each probe object's .text aligned to a page (gas raises the section's
 * alignment to the largest .balign in it, so this costs at most a page of
 * padding per object, none at run time), every variant sits at the same
 * address mod 4096 whatever code before it grows or shrinks; only an edit
 * to its own file moves it, and -falign-functions=64 (mk/probes.am) then
 * keeps the other variants of that file on their 64-byte boundaries.
 * bench/placement.sh measures the effect. */
#ifndef CB_PROBES_PLACEMENT_H
#define CB_PROBES_PLACEMENT_H

__asm__(".pushsection .text\n\t.balign 4096\n\t.popsection");

#endif
