// mime.c: see mime.h. Loaded entries are searched first, newest first,
// so a later line (or file) overrides an earlier one and the table.
#include "mime.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mime { const char *ext, *type; };

static const struct mime builtin[] = {
    { "html", "text/html" }, { "htm", "text/html" }, { "css", "text/css" },
    { "js", "text/javascript" }, { "mjs", "text/javascript" }, { "json", "application/json" },
    { "txt", "text/plain" }, { "xml", "application/xml" }, { "csv", "text/csv" },
    { "md", "text/markdown" }, { "png", "image/png" }, { "jpg", "image/jpeg" },
    { "jpeg", "image/jpeg" }, { "gif", "image/gif" }, { "svg", "image/svg+xml" },
    { "ico", "image/vnd.microsoft.icon" }, { "webp", "image/webp" }, { "avif", "image/avif" },
    { "woff", "font/woff" }, { "woff2", "font/woff2" }, { "ttf", "font/ttf" }, { "otf", "font/otf" },
    { "wasm", "application/wasm" }, { "pdf", "application/pdf" }, { "zip", "application/zip" },
    { "gz", "application/gzip" }, { "tar", "application/x-tar" }, { "mp3", "audio/mpeg" },
    { "ogg", "audio/ogg" }, { "wav", "audio/wav" }, { "mp4", "video/mp4" }, { "webm", "video/webm" },
};

static struct mime *loaded;
static size_t nloaded, cap;

static int add(const char *ext, const char *type) {
    if (nloaded == cap) {
        size_t ncap = cap ? cap * 2 : 256;
        struct mime *m = realloc(loaded, ncap * sizeof *m);
        if (!m) return -1;
        loaded = m;
        cap = ncap;
    }
    char *e = strdup(ext), *t = strdup(type);
    if (!e || !t) { free(e); free(t); return -1; }
    loaded[nloaded++] = (struct mime){ e, t };
    return 0;
}

int mime_load(const char *path) {
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    char line[1024];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#'), *save = NULL;
        if (hash) *hash = '\0';
        const char *type = strtok_r(line, " \t\r\n", &save);
        if (!type || !strchr(type, '/')) continue;
        for (const char *ext; (ext = strtok_r(NULL, " \t\r\n", &save));)
            if (add(ext, type) != 0) rc = -1;
    }
    fclose(f);
    return rc;
}

const char *mime_type(const char *path) {
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash)) return "application/octet-stream";
    const char *ext = dot + 1;
    for (size_t i = nloaded; i-- > 0;)
        if (!strcasecmp(loaded[i].ext, ext)) return loaded[i].type;
    for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
        if (!strcasecmp(builtin[i].ext, ext)) return builtin[i].type;
    return "application/octet-stream";
}
