// SQLite, with its own pthread mutexes (serialized mode: one connection
// shared by every thread), linked into a program whose threads are user
// threads: three threads insert 300 rows each through one connection, on
// two processors with 1 ms time slices, each run into a fresh database
// file; every row must be there, with the right sum, in every run (10 x
// %stress runs; 100 with -Dstress=10). With SQLite's mutexes taken per
// kernel thread, threads of one processor walk into each other's
// critical sections (lost rows, SQLITE_CORRUPT, crashes) or hang.
// (Sanitizer builds: the static library is not instrumented; the runs
// still check the rows.)
//
// REQUIRES: sqlite
// RUN: %cc %s -I%S/../runtime/include -o %t /usr/lib/x86_64-linux-gnu/libsqlite3.a -lm -ldl %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 %timeout %t %stress | FileCheck %s
// CHECK: sqlite: {{[0-9]+}} runs, every row inserted in every run
#include "check.h"
#include <sqlite3.h>
#include <unistd.h>

enum { THREADS = 3, ROWS = 300 };

static sqlite3 *db;

struct inserter { int id; struct cfa_thread thread; };

static void inserter_main(void *object) {
    struct inserter *in = object;
    sqlite3_stmt *st;
    CHECK_EQ(sqlite3_prepare_v2(db, "INSERT INTO t(thread, n) VALUES(?, ?)", -1, &st, NULL), SQLITE_OK);
    for (int n = 0; n < ROWS; n++) {
        sqlite3_bind_int(st, 1, in->id);
        sqlite3_bind_int(st, 2, n);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_BUSY)
            cfa_yield();
        CHECK_EQ(rc, SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
}

static long query(const char *sql) {
    sqlite3_stmt *st;
    CHECK_EQ(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    CHECK_EQ(sqlite3_step(st), SQLITE_ROW);
    long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int main(int argc, char **argv) {
    long runs = 10 * arg_long(argc, argv, 1, 1);
    CHECK_EQ(sqlite3_threadsafe(), 1); /* compiled serialized */
    struct cfa_processor extra = {0};
    cfa_processor_start(&extra);
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/cfa-sqlite-%d.db", dir && *dir ? dir : "/tmp", (int)getpid());
    for (long r = 0; r < runs; r++) {
        unlink(path);
        CHECK_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL),
                 SQLITE_OK);
        CHECK_EQ(sqlite3_exec(db, "PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY;"
                                  "CREATE TABLE t(thread INTEGER, n INTEGER)", NULL, NULL, NULL), SQLITE_OK);
        struct inserter in[THREADS];
        memset(in, 0, sizeof in);
        for (int i = 0; i < THREADS; i++) {
            in[i].id = i;
            cfa_thread_start(&in[i].thread, inserter_main, &in[i], "inserter", 0);
        }
        for (int i = 0; i < THREADS; i++)
            cfa_thread_destroy(&in[i].thread);
        CHECK_EQ(query("SELECT count(*) FROM t"), THREADS * ROWS);
        CHECK_EQ(query("SELECT sum(n) FROM t"), (long)THREADS * ROWS * (ROWS - 1) / 2);
        CHECK_EQ(query("SELECT count(DISTINCT thread * 100000 + n) FROM t"), THREADS * ROWS);
        CHECK_EQ(sqlite3_close(db), SQLITE_OK);
    }
    unlink(path);
    cfa_processor_stop(&extra);
    printf("sqlite: %ld runs, every row inserted in every run\n", runs);
    return 0;
}
