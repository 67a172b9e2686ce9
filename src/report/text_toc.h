/* text_toc.h — the text report's table of contents, and one section of it.
 *
 * One default run's text report is over a thousand lines, and the parts a
 * reader comes for (a family's tables, the kernel's FPU costs, the
 * crossovers) were found by scrolling.  The report is rendered
 * whole first; its sections are then found by their first lines, and
 * either a contents block with each section's line number goes after the
 * first run's header (line 1 stays the run's, which scripts read), or only
 * the section asked for is printed (report --section NAME). */
#ifndef CB_TEXT_TOC_H
#define CB_TEXT_TOC_H

#include <stddef.h>
#include <stdio.h>

struct cb_sb;

/* text[0..len) with its contents block, to out; or, with section (not
 * NULL), that section alone.  0; -ENOENT when no section has that name
 * (err then lists the names there are); -EIO when out failed. */
int cb_text_toc(const char *text, size_t len, const char *section, FILE *out, struct cb_sb *err);

#endif
