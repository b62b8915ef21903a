// http.h: HTTP/1.1 message syntax (RFC 9110, RFC 9112), as pure functions:
// no I/O, no global state, no allocation. Owns the request record and the
// mapping of a raw header block to it; dates, entity tags and ranges.
//
// Invariants: http_parse reads only buf[0..len) and never writes to it;
// a path it returns (status 0) is percent-decoded, starts with '/', and
// has no "." or ".." segment, no NUL and no control character (so it
// cannot leave the root lexically). Spans index into the parsed buffer.
#pragma once
#include <stddef.h>
#include <stdint.h>

enum { HTTP_MAX_HEADER = 8192, HTTP_MAX_PATH = 1024 };

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_OTHER };

// A piece of the header block: buf[off .. off + len).
struct http_span { uint32_t off, len; };

struct http_request {
    enum http_method method;
    int status;                // 0 if servable, else the error status to send
    int minor;                 // HTTP/1.minor
    int keep_alive;            // 1.1: unless "close"; 1.0: only with "keep-alive"
    int64_t content_length;    // -1: none
    int64_t if_modified_since; // seconds since the epoch; -1: none or unparsable
    struct http_span line;     // the request line, for the access log
    struct http_span query;    // after '?', without it (len 0: none)
    struct http_span if_none_match, if_range, range, referer, user_agent; // len 0: absent
    int has_if_none_match, has_if_range, has_range;
    char path[HTTP_MAX_PATH];
};

// Index just past the empty line that ends the header block in buf[0..len)
// (CRLF CRLF, or bare LF line ends as RFC 9112 section 2.2 allows), or 0 if
// it is not there yet.
size_t http_header_end(const char *buf, size_t len);

// Parses one header block buf[0..len) (len from http_header_end).
void http_parse(const char *buf, size_t len, struct http_request *req);

// Reason phrase of a status.
const char *http_reason(int status);

// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") of t into out[30];
// returns its length (29).
size_t http_format_date(int64_t t, char out[30]);

// Seconds since the epoch of an IMF-fixdate, or -1 if s[0..n) is not one
// (or is before 1970).
int64_t http_parse_date(const char *s, size_t n);

// Whether the If-None-Match list s[0..n) ("*" or entity tags) matches etag
// by the weak comparison (RFC 9110 section 13.1.2).
int http_etag_matches(const char *s, size_t n, const char *etag);

// A Range field s[0..n) against a representation of `size` bytes: 206 with
// [*first, *last] for one satisfiable byte range, 416 if none of its ranges
// is satisfiable, 200 to ignore it (not "bytes=", malformed, or several
// ranges: a server may ignore Range, RFC 9110 section 14.2).
int http_range(const char *s, size_t n, int64_t size, int64_t *first, int64_t *last);
