// Files: 64 MiB written with async_pwrite (64 futures of 256 KiB in
// flight), made durable with cfa_fsync, read back with async_pread (64 in
// flight) and verified; the same data read again sequentially with
// cfa_read at the file position, and with cfa_readv; cfa_write appends at
// the position; cfa_openat creates, cfa_close closes. Under a temporary
// directory ($TMPDIR or /tmp), removed at the end.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: 64 MiB written by 256 futures (64 in flight), fsync ok
// CHECK-NEXT: 64 MiB read back by 256 futures (64 in flight), verified
// CHECK-NEXT: sequential cfa_read and cfa_readv verified, append at position ok
#include "iotest.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

enum { CHUNK = 256 * 1024, CHUNKS = 256, IN_FLIGHT = 64 };

static void fill(unsigned char *p, size_t n, uint64_t offset) {
    /* Each 8-byte word is a hash of its file offset: misplaced data shows. */
    for (size_t i = 0; i < n; i += 8) {
        uint64_t x = (offset + i) * 0x9E3779B97F4A7C15ull;
        x ^= x >> 29;
        memcpy(p + i, &x, 8);
    }
}

static bool same(const unsigned char *p, size_t n, uint64_t offset) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t x = (offset + i) * 0x9E3779B97F4A7C15ull, y;
        x ^= x >> 29;
        memcpy(&y, p + i, 8);
        if (x != y) return false;
    }
    return true;
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/cfa-io-file-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
    char path[600];
    snprintf(path, sizeof path, "%s/data", dir);
    unsigned char *bufs = malloc((size_t)IN_FLIGHT * CHUNK);
    CHECK(bufs != NULL);
    static io_future futures[IN_FLIGHT];

    for (long rep = 0; rep < reps; rep++) {
        int fd = cfa_openat(AT_FDCWD, path, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0, "openat: %s", strerror(errno));

        /* write: slot i % IN_FLIGHT is reused once its previous write is done */
        for (int c = 0; c < CHUNKS; c++) {
            int slot = c % IN_FLIGHT;
            if (c >= IN_FLIGHT) CHECK_EQ(cfa_io_wait(&futures[slot]), CHUNK);
            unsigned char *b = bufs + (size_t)slot * CHUNK;
            fill(b, CHUNK, (uint64_t)c * CHUNK);
            async_pwrite(&futures[slot], fd, b, CHUNK, (off_t)c * CHUNK);
        }
        for (int s = 0; s < IN_FLIGHT; s++) CHECK_EQ(cfa_io_wait(&futures[s]), CHUNK);
        CHECK_EQ(cfa_fsync(fd), 0);
        struct stat st;
        CHECK(fstat(fd, &st) == 0);
        CHECK_EQ(st.st_size, (long long)CHUNK * CHUNKS);
        if (rep == 0) printf("64 MiB written by %d futures (%d in flight), fsync ok\n", CHUNKS, IN_FLIGHT);

        /* read back: verify each chunk when its future completes */
        int slot_chunk[IN_FLIGHT];
        for (int c = 0; c < CHUNKS + IN_FLIGHT; c++) {
            int slot = c % IN_FLIGHT;
            if (c >= IN_FLIGHT) {
                int done = slot_chunk[slot];
                CHECK_EQ(cfa_io_wait(&futures[slot]), CHUNK);
                CHECK(same(bufs + (size_t)slot * CHUNK, CHUNK, (uint64_t)done * CHUNK), "chunk %d differs", done);
            }
            if (c < CHUNKS) {
                memset(bufs + (size_t)slot * CHUNK, 0, CHUNK);
                slot_chunk[slot] = c;
                async_pread(&futures[slot], fd, bufs + (size_t)slot * CHUNK, CHUNK, (off_t)c * CHUNK);
            }
        }
        if (rep == 0) printf("64 MiB read back by %d futures (%d in flight), verified\n", CHUNKS, IN_FLIGHT);

        /* sequential reads at the file position: 1 MiB with cfa_read, then
         * 1 MiB with cfa_readv (two buffers), positions continue */
        CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
        uint64_t pos = 0;
        while (pos < (1u << 20)) {
            ssize_t n = cfa_read(fd, bufs, 100000);
            CHECK(n > 0, "read: %s", strerror(errno));
            CHECK(same(bufs, (size_t)n & ~(size_t)7, pos), "sequential read at %llu", (unsigned long long)pos);
            pos += (uint64_t)n;
            if (pos % 8) { /* keep word alignment for `same` */
                size_t pad = 8 - pos % 8;
                CHECK_EQ(cfa_read(fd, bufs, pad), pad);
                pos += pad;
            }
        }
        CHECK_EQ(lseek(fd, 0, SEEK_CUR), (long long)pos);
        struct iovec iov[2] = { { bufs, 4096 }, { bufs + CHUNK, 8192 } };
        CHECK_EQ(cfa_readv(fd, iov, 2), 4096 + 8192);
        CHECK(same(bufs, 4096, pos) && same(bufs + CHUNK, 8192, pos + 4096));
        CHECK_EQ(lseek(fd, 0, SEEK_CUR), (long long)(pos + 4096 + 8192));

        /* write at the position: at the end of the file, then read it back */
        CHECK_EQ(lseek(fd, 0, SEEK_END), (long long)CHUNK * CHUNKS);
        fill(bufs, 4096, (uint64_t)CHUNK * CHUNKS);
        CHECK_EQ(cfa_write(fd, bufs, 4096), 4096);
        CHECK_EQ(lseek(fd, 0, SEEK_CUR), (long long)CHUNK * CHUNKS + 4096);
        memset(bufs, 0, 4096);
        CHECK_EQ(cfa_pread(fd, bufs, 8192, (off_t)CHUNK * CHUNKS), 4096); /* short: end of file */
        CHECK(same(bufs, 4096, (uint64_t)CHUNK * CHUNKS));
        CHECK_EQ(cfa_pread(fd, bufs, 10, (off_t)CHUNK * CHUNKS + 4096), 0);
        if (rep == 0) printf("sequential cfa_read and cfa_readv verified, append at position ok\n");
        CHECK_EQ(cfa_close(fd), 0);
        CHECK(unlink(path) == 0);
    }
    CHECK(rmdir(dir) == 0);
    free(bufs);
    return 0;
}
