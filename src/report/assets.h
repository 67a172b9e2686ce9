/* assets.h — files from reports/ compiled into the binary.
 *
 * The HTML report's template, style sheet and script live in reports/ as
 * ordinary files people can edit, and build-aux/embed.sh turns them into
 * string literals (src/assets.c, generated), so a copied cyclebudget writes
 * complete, self-contained pages with nothing installed beside it. */
#ifndef CB_ASSETS_H
#define CB_ASSETS_H

#include <stddef.h>

struct cb_asset {
    const char *name;     /* the file's base name: "report.css" */
    const char *text;
};
extern const struct cb_asset cb_assets[];
extern const size_t cb_nassets;

/* The text of the asset called name, or NULL. */
const char *cb_asset_find(const char *name);

#endif
