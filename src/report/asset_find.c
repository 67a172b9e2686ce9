/* asset_find.c — one embedded file of reports/ by its base name (assets.h):
 * the HTML template, style sheet and script, and the path view's parts. */
#include <string.h>

#include "report/assets.h"

const char *cb_asset_find(const char *name)
{
    for (size_t i = 0; i < cb_nassets; i++)
        if (strcmp(cb_assets[i].name, name) == 0)
            return cb_assets[i].text;
    return NULL;
}
