// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A stack walked through a frame whose CFA is defined by %rbx, as glibc's
 * lazy-binding trampoline (_dl_runtime_resolve_xsavec: a program's first
 * call of each library function) defines it while it realigns the stack
 * for xsavec. Built without frame pointers (t_unwind_rbx):
 *   main -> stage -> realign_call (asm: %rbx-defined CFA) -> keeps_rbx
 *   (saves %rbx and uses it) -> spin_leaf (burns the CPU)
 * so a walk from spin_leaf needs %rbx as realign_call's callee saved it.
 * "expr": through expr_call instead, whose CFA is a DWARF expression.
 * usage: realign SECONDS [expr]
 */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

void realign_call(void (*fn)(void));

/* the trampoline in small: push %rbx; mov %rsp,%rbx; and $-64,%rsp; call; restore */
__asm__(".text\n"
	".globl realign_call\n"
	".type realign_call,@function\n"
	"realign_call:\n"
	".cfi_startproc\n"
	"	push %rbx\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbx, -16\n"
	"	mov %rsp, %rbx\n"
	".cfi_def_cfa_register %rbx\n"
	"	and $-64, %rsp\n"
	"	sub $192, %rsp\n"
	"	call *%rdi\n"
	"	mov %rbx, %rsp\n"
	".cfi_def_cfa_register %rsp\n"
	"	pop %rbx\n"
	".cfi_def_cfa_offset 8\n"
	".cfi_restore %rbx\n"
	"	ret\n"
	".cfi_endproc\n"
	".size realign_call, .-realign_call\n");

void expr_call(void (*fn)(void));

/*
 * A CFA given by a DWARF expression (DW_CFA_def_cfa_expression: *(%rsp + 8)
 * deref'd, a shape hotcold's tables do not hold): the walk must stop here
 * and say so ("expr" mode, t_unwind_rbx's cut check)
 */
__asm__(".text\n"
	".globl expr_call\n"
	".type expr_call,@function\n"
	"expr_call:\n"
	".cfi_startproc\n"
	"	push %rbx\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbx, -16\n"
	/* DW_CFA_def_cfa_expression, 3 bytes: DW_OP_breg7 (rsp) 8, DW_OP_deref */
	".cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06\n"
	"	call *%rdi\n"
	".cfi_def_cfa %rsp, 16\n"
	"	pop %rbx\n"
	".cfi_def_cfa_offset 8\n"
	".cfi_restore %rbx\n"
	"	ret\n"
	".cfi_endproc\n"
	".size expr_call, .-expr_call\n");

static volatile unsigned long sink;
static int expr_mode;
static double deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void spin_leaf(void)
{
	for (unsigned long i = 0; i < 2000000; i++)
		sink += i * 7;
}

/* %rbx saved in the prologue (its CFI says where) and used: the walk must restore it */
NOINLINE void keeps_rbx(void)
{
	__asm__ volatile("mov %0, %%rbx" : : "r"(sink) : "rbx");
	spin_leaf();
	__asm__ volatile("" : : : "rbx");
}

NOINLINE void stage(void)
{
	while (now() < deadline) {
		if (expr_mode)
			expr_call(keeps_rbx);
		else
			realign_call(keeps_rbx);
	}
}

int main(int argc, char **argv)
{
	deadline = now() + (argc > 1 ? atof(argv[1]) : 2);
	expr_mode = argc > 2 && argv[2][0] == 'e';
	stage();
	return 0;
}
