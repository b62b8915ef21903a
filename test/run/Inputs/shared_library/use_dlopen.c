/* A C program that knows nothing of cfa-lite: it loads libtally.so (argv[1])
 * at run time, which brings the runtime with it. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2)
        return 2;
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    long (*sum)(long, long *) = (long (*)(long, long *))dlsym(lib, "tally_sum");
    if (!sum) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 1;
    }
    long calls;
    long total = sum(1000, &calls);
    printf("dlopen: sum %ld calls %ld\n", total, calls);
    dlclose(lib); /* the library stays: it has threads' code */
    total = sum(100, &calls);
    printf("after dlclose: sum %ld calls %ld\n", total, calls);
    return 0;
}
