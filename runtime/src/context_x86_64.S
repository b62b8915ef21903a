/* context_x86_64.S: the context switch, the only code on every switch.
 *
 * cfa_context_switch(from, to) saves the callee-saved registers, MXCSR and
 * the x87 control word on the current stack, stores the stack pointer in
 * from->sp, loads to->sp and restores the same from there. Everything else
 * is caller-saved under the System V ABI, so the C caller keeps it
 * (rax, rcx and rdx are used as scratch here).
 *
 * Floating-point modes. The ABI makes the control bits of MXCSR and the
 * x87 control word callee-saved and MXCSR's six status bits (the sticky
 * exception flags) caller-saved, so a thread keeps its rounding mode and
 * exception masks across a switch but not its flags, as across any call.
 * The modes are reloaded only when the two contexts' differ: ldmxcsr with
 * a different value stalls the pipeline (measured: a coroutine round trip
 * 5 ns -> 107 ns when one side had the inexact flag set, which any
 * double arithmetic sets), and nearly all threads run the default modes.
 *
 * Saved frame, from the stored sp upwards:
 *   [sp+0]  MXCSR (4 bytes), x87 control word (2 bytes), padding
 *   [sp+8]  r15, r14, r13, r12, rbx, rbp
 *   [sp+56] return address
 * cfa_context_prime (context.c) builds the same frame on a fresh stack with
 * the return address set to cfa_context_trampoline, r12 = entry function
 * and r13 = its argument.
 */
    .section cfa_runtime_text,"ax",@progbits
    .globl  cfa_context_switch
    .type   cfa_context_switch, @function
    .p2align 4
cfa_context_switch:
    .cfi_startproc
    pushq   %rbp
    .cfi_adjust_cfa_offset 8
    pushq   %rbx
    .cfi_adjust_cfa_offset 8
    pushq   %r12
    .cfi_adjust_cfa_offset 8
    pushq   %r13
    .cfi_adjust_cfa_offset 8
    pushq   %r14
    .cfi_adjust_cfa_offset 8
    pushq   %r15
    .cfi_adjust_cfa_offset 8
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    movl    (%rsp), %eax            /* our modes, each read back at the */
    movzwl  4(%rsp), %edx           /* width it was stored (forwarded) */
    movq    %rsp, (%rdi)
    movq    (%rsi), %rsp
    xorl    (%rsp), %eax            /* which bits differ from theirs, */
    andl    $0xFFC0, %eax           /* but for MXCSR's status flags */
    xorw    4(%rsp), %dx
    orl     %edx, %eax
    jnz     .Lload_modes
.Lmodes_loaded:
    addq    $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq    %r15
    .cfi_adjust_cfa_offset -8
    popq    %r14
    .cfi_adjust_cfa_offset -8
    popq    %r13
    .cfi_adjust_cfa_offset -8
    popq    %r12
    .cfi_adjust_cfa_offset -8
    popq    %rbx
    .cfi_adjust_cfa_offset -8
    popq    %rbp
    .cfi_adjust_cfa_offset -8
    /* pop+jmp rather than ret: the return-stack predictor always guesses
     * wrong across a switch (it predicts the caller of this call, on the
     * other stack); an indirect jump is predicted from its own history.
     * A coroutine round trip takes 14 ns this way, 35 ns with ret. */
    popq    %rcx
    .cfi_adjust_cfa_offset -8
    jmpq    *%rcx
    int3    /* no straight-line speculation past the jump */

    /* Out of line: a thread that changed its rounding mode or masks. */
.Lload_modes:
    .cfi_def_cfa_offset 64
    ldmxcsr (%rsp)
    fldcw   4(%rsp)
    jmp     .Lmodes_loaded
    .cfi_endproc
    .size   cfa_context_switch, .-cfa_context_switch

/* First code run on a primed stack: call entry(arg). The entry functions
 * never return; ud2 makes a bug loud. The undefined return address ends
 * debugger backtraces here. */
    .globl  cfa_context_trampoline
    .type   cfa_context_trampoline, @function
    .p2align 4
cfa_context_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq    %r13, %rdi
    callq   *%r12
    ud2
    .cfi_endproc
    .size   cfa_context_trampoline, .-cfa_context_trampoline

    .section .note.GNU-stack,"",@progbits
