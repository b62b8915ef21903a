// http.h: HTTP/1.1 request parsing and response headers (plain C, no I/O).
// Owns: the request record and the mapping of a raw header block to a
// status. Invariant: http_parse never reads past len and never writes to
// the input; a path it returns is percent-decoded, starts with '/', and has
// no "." or ".." segment and no NUL (so it cannot leave the root lexically).
#pragma once
#include <stddef.h>

enum { HTTP_MAX_HEADER = 8192, HTTP_MAX_PATH = 1024 };

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_OTHER };

struct http_request {
    enum http_method method;
    int status;            // 0 if servable, else the error status to send
    int keep_alive;        // 1.1 default on, "Connection: close" off; 1.0 off
    char path[HTTP_MAX_PATH];
};

// Index just past "\r\n\r\n" in buf[0..len), or 0 if not there yet.
size_t http_header_end(const char *buf, size_t len);
// Parse one header block buf[0..len) (len from http_header_end).
void http_parse(const char *buf, size_t len, struct http_request *req);
// Reason phrase of a status.
const char *http_reason(int status);
