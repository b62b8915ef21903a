/* A C translation unit linked with cfa-lite ones. */
int plain_c_function(int x) { return x + 1; }
