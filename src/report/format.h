/* format.h — the output formats of every command, one enum: each command
 * takes the subset its --format names (report: text, html, csv, json,
 * gbench; compare, ab and bisect-check: text, markdown, json, junit). */
#ifndef CB_FORMAT_H
#define CB_FORMAT_H

enum cb_format {
    CB_FMT_TEXT,
    CB_FMT_HTML,
    CB_FMT_CSV,
    CB_FMT_JSON,
    CB_FMT_GBENCH,
    CB_FMT_MARKDOWN,
    CB_FMT_JUNIT,
};

#endif
