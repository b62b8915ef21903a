/* gdb_scripts.S: the runtime's gdb extension (tools/gdb/cfa_gdb.py) embedded
 * in every program the runtime is linked into, in the section gdb reads
 * scripts from (.debug_gdb_scripts: a kind byte, 4 = inline Python, the
 * script's name on its first line, its text, a NUL). gdb loads it when the
 * program is in its auto-load safe-path. boot.c refers to the anchor so
 * that a static link keeps this object.
 */
    .section .rodata
    .globl cfa_gdb_scripts_anchor
cfa_gdb_scripts_anchor:
    .byte 0

    .pushsection .debug_gdb_scripts, "MS", @progbits, 1
    .byte 4
    .ascii "cfa-lite/cfa_gdb.py\n"
    .incbin "cfa_gdb.py"
    .byte 0
    .popsection
    .section .note.GNU-stack, "", @progbits
