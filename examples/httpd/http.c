// http.c: see http.h. Parsing is strict (request line "METHOD SP target SP
// HTTP/1.x", CRLF line ends): whatever does not match is 400, so nothing
// ambiguous reaches the file system.
#include "http.h"
#include <string.h>
#include <strings.h>
#include <stdlib.h>

size_t http_header_end(const char *buf, size_t len) {
    for (size_t i = 3; i < len; i++)
        if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r')
            return i + 1;
    return 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Decode target[0..n) into out; 0 on success, else the status to send.
// Segments "." and ".." are refused after decoding (so %2e%2e is too).
static int decode_path(const char *t, size_t n, char *out) {
    if (n == 0 || t[0] != '/') return 400;        // absolute-form and "*" refused
    size_t o = 0;
    for (size_t i = 0; i < n && t[i] != '?' && t[i] != '#'; i++) {
        char c = t[i];
        if (c == '%') {
            int h, l;
            if (i + 2 >= n) return 400;
            if ((h = hexval(t[i + 1])) < 0 || (l = hexval(t[i + 2])) < 0) return 400;
            c = (char)(h * 16 + l);
            i += 2;
        }
        if (c == '\0' || (unsigned char)c < 0x20) return 400;
        if (o + 1 >= HTTP_MAX_PATH) return 414;
        out[o++] = c;
    }
    out[o] = '\0';
    for (char *s = out; *s; ) {                   // walk the segments
        char *e = strchr(s + 1, '/');
        size_t sl = e ? (size_t)(e - s - 1) : strlen(s + 1);
        if ((sl == 1 && s[1] == '.') || (sl == 2 && s[1] == '.' && s[2] == '.')) return 404;
        if (!e) break;
        s = e;
    }
    return 0;
}

void http_parse(const char *buf, size_t len, struct http_request *req) {
    memset(req, 0, sizeof *req);
    req->method = HTTP_OTHER;
    const char *end = buf + len, *sp1 = memchr(buf, ' ', len);
    const char *eol = memchr(buf, '\r', len);
    if (!sp1 || !eol || sp1 > eol || sp1 == buf) { req->status = 400; return; }
    const char *sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
    if (!sp2 || eol - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
        (sp2[8] != '0' && sp2[8] != '1')) { req->status = 400; return; }
    for (const char *p = buf; p < sp1; p++)
        if (*p < 'A' || *p > 'Z') { req->status = 400; return; }
    size_t ml = (size_t)(sp1 - buf);
    if (ml == 3 && !memcmp(buf, "GET", 3)) req->method = HTTP_GET;
    else if (ml == 4 && !memcmp(buf, "HEAD", 4)) req->method = HTTP_HEAD;
    req->keep_alive = sp2[8] == '1';
    // Header lines: "Name: value"; only Connection and the body headers matter.
    for (const char *l = eol + 2; l < end - 2; ) {
        const char *le = memchr(l, '\r', (size_t)(end - l));
        if (!le || le[1] != '\n') { req->status = 400; return; }
        const char *colon = memchr(l, ':', (size_t)(le - l));
        if (!colon || colon == l) { req->status = 400; return; }
        const char *v = colon + 1;
        while (v < le && (*v == ' ' || *v == '\t')) v++;
        size_t nl = (size_t)(colon - l), vl = (size_t)(le - v);
        if (nl == 10 && !strncasecmp(l, "Connection", 10)) {
            if (vl >= 5 && !strncasecmp(v, "close", 5)) req->keep_alive = 0;
            else if (vl >= 10 && !strncasecmp(v, "keep-alive", 10)) req->keep_alive = 1;
        } else if (nl == 14 && !strncasecmp(l, "Content-Length", 14)) {
            if (strtol(v, NULL, 10) != 0) { req->status = 413; return; }  // no bodies served
        } else if (nl == 17 && !strncasecmp(l, "Transfer-Encoding", 17)) {
            req->status = 413; return;
        }
        l = le + 2;
    }
    if (req->method == HTTP_OTHER) { req->status = 405; return; }
    req->status = decode_path(sp1 + 1, (size_t)(sp2 - sp1 - 1), req->path);
}

const char *http_reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default:  return "Internal Server Error";
    }
}
