/* one_runtime.c: a process has one runtime.
 *
 * Every copy of the runtime carries an ELF note (name "cfa-lite", type 1)
 * in the module it is linked into: the program with the static libcfa.a,
 * or libcfa.so. Two copies in one process (a program with the static
 * runtime using a library built on the shared one) would run two
 * schedulers over each other's threads; each copy's boot looks for the
 * notes of every loaded module and stops the program with a message
 * naming both modules instead. The copy that boots second sees both,
 * whichever it is (a library's constructors run before the program's, a
 * dlopen'ed library's at the dlopen).
 */
#include "one_runtime.h"

#include <cfa/runtime.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>

#define RUNTIME_NOTE_NAME "cfa-lite"
#define RUNTIME_NOTE_TYPE 1

__asm__(".pushsection .note.cfa-lite.runtime, \"a\", @note\n\t"
        ".balign 4\n\t"
        ".long 9, 0, 1\n\t" /* name size, descriptor size, type */
        ".asciz \"" RUNTIME_NOTE_NAME "\"\n\t"
        ".balign 4\n\t"
        ".popsection");

static bool has_runtime_note(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        size_t align = ph->p_align > 4 ? ph->p_align : 4;
        const char *at = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *end = at + ph->p_memsz;
        while (at + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)at;
            const char *name = at + sizeof *n;
            if (n->n_type == RUNTIME_NOTE_TYPE && n->n_namesz == sizeof RUNTIME_NOTE_NAME &&
                memcmp(name, RUNTIME_NOTE_NAME, sizeof RUNTIME_NOTE_NAME) == 0)
                return true;
            at = name + ((n->n_namesz + align - 1) & ~(align - 1));
            at += (n->n_descsz + align - 1) & ~(align - 1);
        }
    }
    return false;
}

struct runtimes_seen {
    unsigned count;
    const char *names[2];
};

static int note_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct runtimes_seen *seen = data;
    if (has_runtime_note(info)) {
        if (seen->count < 2)
            seen->names[seen->count] = info->dlpi_name[0] ? info->dlpi_name : "the program";
        seen->count++;
    }
    return 0;
}

void one_runtime_check(void)
{
    struct runtimes_seen seen = { 0, { 0, 0 } };
    dl_iterate_phdr(note_runtime, &seen);
    if (seen.count > 1)
        cfa_fatal("two cfa-lite runtimes in one process, in %s and in %s: a program that uses a "
                  "library built on the shared runtime (libcfa.so) must use it too "
                  "(cfacc -shared-libcfa, docs/install.md)",
                  seen.names[0], seen.names[1]);
}
