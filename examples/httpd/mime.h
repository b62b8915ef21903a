// mime.h: the Content-Type of a file by its extension. A built-in table
// covers what browsers need; mime_load adds (or overrides with) the
// entries of a file in mime.types format ("type ext ext ...", '#'
// comments), such as /etc/mime.types. Not thread-safe to load: load
// before serving; lookups only read.
#pragma once

// Reads a mime.types file; 0, or -1 with errno set.
int mime_load(const char *path);

// The type of `path` by its last extension (case-insensitive), or
// "application/octet-stream".
const char *mime_type(const char *path);
