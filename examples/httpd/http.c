// http.c: see http.h. Parsing is strict where ambiguity could reach the
// file system or the framing (request line, header names, bare CR,
// obsolete line folding, Content-Length), and lenient where RFC 9112
// allows it (bare LF line ends, empty lines before the request line are
// the caller's to skip). Whatever does not match is 400.
#include "http.h"
#include <string.h>
#include <strings.h>
#include <time.h>

static int is_tchar(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

size_t http_header_end(const char *buf, size_t len) {
    for (size_t i = 0; i + 1 < len; i++) {
        if (buf[i] != '\n') continue;
        if (buf[i + 1] == '\n') return i + 2;
        if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n') return i + 3;
    }
    return 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Decodes target t[0..n) (origin-form, the path part) into out; 0 on
// success, else the status to send. Segments "." and ".." are refused
// after decoding (so %2e%2e is too).
static int decode_path(const char *t, size_t n, char *out) {
    if (n == 0 || t[0] != '/') return 400;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (c == '%') {
            int h, l;
            if (i + 2 >= n) return 400;
            if ((h = hexval(t[i + 1])) < 0 || (l = hexval(t[i + 2])) < 0) return 400;
            c = (char)(h * 16 + l);
            i += 2;
        }
        if (c == '\0' || (unsigned char)c < 0x20 || c == 0x7f) return 400;
        if (o + 1 >= HTTP_MAX_PATH) return 414;
        out[o++] = c;
    }
    out[o] = '\0';
    for (char *s = out; *s;) { // walk the segments
        char *e = strchr(s + 1, '/');
        size_t sl = e ? (size_t)(e - s - 1) : strlen(s + 1);
        if ((sl == 1 && s[1] == '.') || (sl == 2 && s[1] == '.' && s[2] == '.')) return 404;
        if (!e) break;
        s = e;
    }
    return 0;
}

// One line of buf[from..end): its content [*b, *e) without the line end;
// returns the index after the line end, or 0 for a bare CR or no LF.
static size_t next_line(const char *buf, size_t from, size_t end, size_t *b, size_t *e) {
    const char *lf = memchr(buf + from, '\n', end - from);
    if (!lf) return 0;
    size_t stop = (size_t)(lf - buf);
    size_t content_end = stop > from && buf[stop - 1] == '\r' ? stop - 1 : stop;
    if (memchr(buf + from, '\r', content_end - from)) return 0; // bare CR
    *b = from;
    *e = content_end;
    return stop + 1;
}

static struct http_span span(size_t b, size_t e) {
    return (struct http_span){ (uint32_t)b, (uint32_t)(e - b) };
}

static int name_is(const char *buf, size_t b, size_t e, const char *name) {
    size_t n = strlen(name);
    return e - b == n && strncasecmp(buf + b, name, n) == 0;
}

// Whether the comma-separated list buf[b..e) has the token tok.
static int has_token(const char *buf, size_t b, size_t e, const char *tok) {
    size_t n = strlen(tok);
    while (b < e) {
        while (b < e && (buf[b] == ' ' || buf[b] == '\t' || buf[b] == ',')) b++;
        size_t s = b;
        while (b < e && buf[b] != ',') b++;
        size_t t = b;
        while (t > s && (buf[t - 1] == ' ' || buf[t - 1] == '\t')) t--;
        if (t - s == n && strncasecmp(buf + s, tok, n) == 0) return 1;
    }
    return 0;
}

// Parses the request line buf[b..e); 0 or the status to send.
static int parse_request_line(const char *buf, size_t b, size_t e, struct http_request *req,
                              size_t *target_b, size_t *target_e) {
    const char *sp1 = memchr(buf + b, ' ', e - b);
    if (!sp1 || sp1 == buf + b) return 400;
    const char *sp2 = memchr(sp1 + 1, ' ', (size_t)(buf + e - sp1 - 1));
    if (!sp2 || sp2 == sp1 + 1) return 400;
    for (const char *p = buf + b; p < sp1; p++)
        if (*p < 'A' || *p > 'Z') return 400;
    size_t ml = (size_t)(sp1 - buf - b);
    if (ml == 3 && !memcmp(buf + b, "GET", 3)) req->method = HTTP_GET;
    else if (ml == 4 && !memcmp(buf + b, "HEAD", 4)) req->method = HTTP_HEAD;
    const char *v = sp2 + 1;
    if (buf + e - v != 8 || memcmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' || v[6] != '.' ||
        v[7] < '0' || v[7] > '9')
        return 400;
    if (v[5] != '1') return v[5] == '0' ? 400 : 505;
    req->minor = v[7] - '0';
    req->keep_alive = req->minor >= 1;
    *target_b = (size_t)(sp1 + 1 - buf);
    *target_e = (size_t)(sp2 - buf);
    for (size_t i = *target_b; i < *target_e; i++)
        if ((unsigned char)buf[i] <= ' ' || buf[i] == 0x7f) return 400;
    return 0;
}

// Digits only, no overflow; -1 if not that.
static int64_t parse_length(const char *s, size_t n) {
    if (n == 0 || n > 18) return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

// Parses one header field line buf[b..e); 0 or the status to send.
static int parse_field(const char *buf, size_t b, size_t e, struct http_request *req, int *hosts) {
    if (buf[b] == ' ' || buf[b] == '\t') return 400; // obsolete line folding
    const char *colon = memchr(buf + b, ':', e - b);
    if (!colon || colon == buf + b) return 400;
    size_t ne = (size_t)(colon - buf);
    for (size_t i = b; i < ne; i++)
        if (!is_tchar((unsigned char)buf[i])) return 400; // includes space before ':'
    size_t vb = ne + 1, ve = e;
    while (vb < ve && (buf[vb] == ' ' || buf[vb] == '\t')) vb++;
    while (ve > vb && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t')) ve--;
    for (size_t i = vb; i < ve; i++)
        if (buf[i] == '\0') return 400;
    if (name_is(buf, b, ne, "Host")) {
        ++*hosts;
    } else if (name_is(buf, b, ne, "Connection")) {
        if (has_token(buf, vb, ve, "close")) req->keep_alive = 0;
        else if (has_token(buf, vb, ve, "keep-alive")) req->keep_alive = 1;
    } else if (name_is(buf, b, ne, "Content-Length")) {
        int64_t n = parse_length(buf + vb, ve - vb);
        if (n < 0 || (req->content_length >= 0 && req->content_length != n)) return 400;
        req->content_length = n;
    } else if (name_is(buf, b, ne, "Transfer-Encoding")) {
        return 501;
    } else if (name_is(buf, b, ne, "If-Modified-Since")) {
        req->if_modified_since = http_parse_date(buf + vb, ve - vb);
    } else if (name_is(buf, b, ne, "If-None-Match")) {
        req->if_none_match = span(vb, ve);
        req->has_if_none_match = 1;
    } else if (name_is(buf, b, ne, "If-Range")) {
        req->if_range = span(vb, ve);
        req->has_if_range = 1;
    } else if (name_is(buf, b, ne, "Range")) {
        req->range = span(vb, ve);
        req->has_range = 1;
    } else if (name_is(buf, b, ne, "Referer")) {
        req->referer = span(vb, ve);
    } else if (name_is(buf, b, ne, "User-Agent")) {
        req->user_agent = span(vb, ve);
    }
    return 0;
}

// The target buf[tb..te): origin-form, or absolute-form (RFC 9112 3.2.2,
// "http://authority/path", whose authority stands for Host).
static int parse_target(const char *buf, size_t tb, size_t te, struct http_request *req, int *hosts) {
    if (te - tb > 7 && strncasecmp(buf + tb, "http://", 7) == 0) {
        const char *slash = memchr(buf + tb + 7, '/', te - tb - 7);
        if (!slash || slash == buf + tb + 7) return 400;
        *hosts = 1;
        tb = (size_t)(slash - buf);
    }
    const char *q = memchr(buf + tb, '?', te - tb);
    const char *h = memchr(buf + tb, '#', te - tb);
    size_t pe = q ? (size_t)(q - buf) : h ? (size_t)(h - buf) : te;
    if (q) req->query = span(pe + 1, h && h > q ? (size_t)(h - buf) : te);
    return decode_path(buf + tb, pe - tb, req->path);
}

void http_parse(const char *buf, size_t len, struct http_request *req) {
    memset(req, 0, sizeof *req);
    req->method = HTTP_OTHER;
    req->content_length = -1;
    req->if_modified_since = -1;
    size_t b, e, tb = 0, te = 0, at = next_line(buf, 0, len, &b, &e);
    if (!at) { req->status = 400; return; }
    req->line = span(b, e);
    int status = parse_request_line(buf, b, e, req, &tb, &te), hosts = 0;
    while (!status) {
        size_t next = next_line(buf, at, len, &b, &e);
        if (!next) { status = 400; break; }
        if (b == e) break; // the empty line: end of the header block
        status = parse_field(buf, b, e, req, &hosts);
        at = next;
    }
    if (!status) status = parse_target(buf, tb, te, req, &hosts);
    if (!status && (hosts > 1 || (req->minor >= 1 && hosts == 0))) status = 400; // RFC 9112 3.2
    if (!status && req->method == HTTP_OTHER) status = 405;
    req->status = status;
}

const char *http_reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 416: return "Range Not Satisfiable";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default:  return "Internal Server Error";
    }
}

static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

size_t http_format_date(int64_t t, char out[30]) {
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    int y = tm.tm_year + 1900;
    // Written digit by digit: snprintf's locale and format parsing are not needed.
    memcpy(out, days[tm.tm_wday], 3);
    out[3] = ','; out[4] = ' ';
    out[5] = (char)('0' + tm.tm_mday / 10); out[6] = (char)('0' + tm.tm_mday % 10); out[7] = ' ';
    memcpy(out + 8, months[tm.tm_mon], 3);
    out[11] = ' ';
    out[12] = (char)('0' + y / 1000 % 10); out[13] = (char)('0' + y / 100 % 10);
    out[14] = (char)('0' + y / 10 % 10); out[15] = (char)('0' + y % 10); out[16] = ' ';
    out[17] = (char)('0' + tm.tm_hour / 10); out[18] = (char)('0' + tm.tm_hour % 10); out[19] = ':';
    out[20] = (char)('0' + tm.tm_min / 10); out[21] = (char)('0' + tm.tm_min % 10); out[22] = ':';
    out[23] = (char)('0' + tm.tm_sec / 10); out[24] = (char)('0' + tm.tm_sec % 10);
    memcpy(out + 25, " GMT", 4);
    out[29] = '\0';
    return 29;
}

static int two_digits(const char *s, int lo, int hi) {
    if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9') return -1;
    int v = (s[0] - '0') * 10 + (s[1] - '0');
    return v < lo || v > hi ? -1 : v;
}

int64_t http_parse_date(const char *s, size_t n) {
    // "Sun, 06 Nov 1994 08:49:37 GMT"
    if (n != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
        s[19] != ':' || s[22] != ':' || memcmp(s + 25, " GMT", 4) != 0)
        return -1;
    int mon = -1;
    for (int i = 0; i < 12; i++)
        if (!memcmp(s + 8, months[i], 3)) mon = i;
    int day = two_digits(s + 5, 1, 31), hi = two_digits(s + 12, 0, 99), lo = two_digits(s + 14, 0, 99);
    int hh = two_digits(s + 17, 0, 23), mm = two_digits(s + 20, 0, 59), ss = two_digits(s + 23, 0, 60);
    if (mon < 0 || day < 0 || hi < 0 || lo < 0 || hh < 0 || mm < 0 || ss < 0 || hi * 100 + lo < 1970) return -1;
    struct tm tm = { .tm_year = hi * 100 + lo - 1900, .tm_mon = mon, .tm_mday = day,
                     .tm_hour = hh, .tm_min = mm, .tm_sec = ss };
    return (int64_t)timegm(&tm);
}

int http_etag_matches(const char *s, size_t n, const char *etag) {
    // Weak comparison: a "W/" prefix on either side is ignored.
    const char *opaque = etag[0] == 'W' ? etag + 2 : etag;
    size_t i = 0, ol = strlen(opaque);
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) i++;
        if (i < n && s[i] == '*') return 1;
        if (i + 1 < n && s[i] == 'W' && s[i + 1] == '/') i += 2;
        if (i >= n || s[i] != '"') return 0; // not a list of entity tags
        const char *close = memchr(s + i + 1, '"', n - i - 1);
        if (!close) return 0;
        size_t tl = (size_t)(close - (s + i)) + 1;
        if (tl == ol && memcmp(s + i, opaque, ol) == 0) return 1;
        i += tl;
    }
    return 0;
}

// A decimal number s[*i..n) advanced past; -1 if none or too large.
static int64_t number(const char *s, size_t n, size_t *i) {
    size_t start = *i;
    int64_t v = 0;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
        if (*i - start >= 18) return -1;
        v = v * 10 + (s[(*i)++] - '0');
    }
    return *i == start ? -1 : v;
}

int http_range(const char *s, size_t n, int64_t size, int64_t *first, int64_t *last) {
    if (n < 6 || strncasecmp(s, "bytes=", 6) != 0) return 200;
    if (memchr(s, ',', n)) return 200; // several ranges: served whole
    size_t i = 6;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    int64_t a = -1, z = -1;
    if (i < n && s[i] == '-') { // suffix: the last z bytes
        i++;
        if ((z = number(s, n, &i)) < 0) return 200;
        if (i != n) return 200;
        if (z == 0 || size == 0) return 416;
        *first = z >= size ? 0 : size - z;
        *last = size - 1;
        return 206;
    }
    if ((a = number(s, n, &i)) < 0 || i >= n || s[i++] != '-') return 200;
    if (i < n && (z = number(s, n, &i)) < 0) return 200;
    if (i != n || (z >= 0 && z < a)) return 200; // invalid: ignored (RFC 9110 14.1.1)
    if (a >= size) return 416;
    *first = a;
    *last = z < 0 || z >= size ? size - 1 : z;
    return 206;
}
