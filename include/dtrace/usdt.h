/* SPDX-License-Identifier: MIT */
/*
 * dtrace/usdt.h: the probe-site macros that headers made by `dtrace -h`
 * expand to.  Installed; included by application code (C and C++).
 *
 * A probe site is one `nop` plus an ELF note in section .note.stapsdt (type
 * 3, owner "stapsdt"), the format that <sys/sdt.h> documents, so bpftrace,
 * perf and gdb see our probes too.  On x86-64 a 5-byte nop (0f 1f 44 00 00)
 * follows the nop: a kernel with the optimized uprobe turns a probe placed
 * there into a call instead of a trap, four times cheaper, and the usdt
 * provider places its probes there when the kernel has it.  The note still
 * names the 1-byte nop, which every kernel emulates without a single-step
 * (a 5-byte nop is single-stepped on kernels without the optimization), so
 * other tools and older kernels pay what they paid; untraced, the two nops
 * cost one cycle or so more.  The note holds, as 8-byte words, the
 * address of the nop, the address of the .stapsdt.base marker (to undo
 * prelinking) and the address of the probe's semaphore, then three strings:
 * provider, probe name and the argument specification ("-4@%edi 8@%rsi":
 * size, negative when signed, '@', the operand in AT&T syntax).
 *
 * Each site also appends { nop address, semaphore address } to the
 * allocated section dtrace_usdt_sites.  The registration code that
 * `dtrace -G` links in walks that section (through the linker-made
 * __start_/__stop_ symbols, which are per module) to tell dtprobed where its
 * probes are, without reading the file.
 *
 * Semaphores: unsigned short, hidden, in section .probes, defined by the
 * `dtrace -G` object, named <provider>_<probe>_semaphore.  The kernel
 * increments it while a uprobe with a reference counter traces the site, so
 * DTRACE_USDT_ENABLED() is one load and works where BPF may not write user
 * memory (lockdown).  A disabled probe costs the nop.
 *
 * Invariants: the asm is `volatile` and has no outputs, so the compiler keeps
 * every expansion (each inlined or unrolled copy is its own site, with its
 * own note); the operands are the already-cast argument values.
 */
#ifndef DTRACE_USDT_H
#define DTRACE_USDT_H

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "dtrace/usdt.h: unsupported architecture"
#endif

#define DTRACE_USDT_STR_(x)	#x
#define DTRACE_USDT_STR(x)	DTRACE_USDT_STR_(x)

#define DTRACE_USDT_SEMA(prov, name)	prov##_##name##_semaphore

#ifdef __cplusplus
#define DTRACE_USDT_EXTERN	extern "C"
#else
#define DTRACE_USDT_EXTERN	extern
#endif

/* Declare a probe's semaphore (once per probe in the generated header). */
#define DTRACE_USDT_DECLARE_SEMA(prov, name)				\
	DTRACE_USDT_EXTERN volatile unsigned short			\
	DTRACE_USDT_SEMA(prov, name)					\
	__attribute__((visibility("hidden")))

/* True while a tracer traces the probe: one load. */
#define DTRACE_USDT_ENABLED(prov, name)					\
	__builtin_expect(DTRACE_USDT_SEMA(prov, name) != 0, 0)

/* The .stapsdt.base marker: one byte, once per module (a comdat group). */
#define DTRACE_USDT_ASM_BASE						\
	".ifndef _.stapsdt.base\n"					\
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
	".weak _.stapsdt.base\n"					\
	".hidden _.stapsdt.base\n"					\
	"_.stapsdt.base: .space 1\n"					\
	".size _.stapsdt.base, 1\n"					\
	".popsection\n"							\
	".endif\n"

/* What follows the site's nop: a 5-byte nop where the kernel can optimize
 * a probe on one (x86-64), nothing elsewhere.  Spelled as bytes so that no
 * assembler picks another encoding the provider would not recognize. */
#ifdef __x86_64__
#define DTRACE_USDT_ASM_NOP5	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
#else
#define DTRACE_USDT_ASM_NOP5	""
#endif

/* The site: a nop, its note and its entry in dtrace_usdt_sites.  "?" puts
 * the note in the section group of the code (a discarded inline copy takes
 * its note with it). */
#define DTRACE_USDT_ASM_SITE(prov, name, argspec)			\
	"990: nop\n"							\
	DTRACE_USDT_ASM_NOP5						\
	".pushsection .note.stapsdt,\"?\",\"note\"\n"			\
	".balign 4\n"							\
	".4byte 992f-991f, 994f-993f, 3\n"				\
	"991: .asciz \"stapsdt\"\n"					\
	"992: .balign 4\n"						\
	"993: .8byte 990b\n"						\
	".8byte _.stapsdt.base\n"					\
	".8byte " DTRACE_USDT_STR(DTRACE_USDT_SEMA(prov, name)) "\n"	\
	".asciz \"" #prov "\"\n"					\
	".asciz \"" #name "\"\n"					\
	".asciz \"" argspec "\"\n"					\
	"994: .balign 4\n"						\
	".popsection\n"							\
	".pushsection dtrace_usdt_sites,\"aw?\",\"progbits\"\n"		\
	".balign 8\n"							\
	".8byte 990b\n"							\
	".8byte " DTRACE_USDT_STR(DTRACE_USDT_SEMA(prov, name)) "\n"	\
	".popsection\n"							\
	DTRACE_USDT_ASM_BASE

#define DTRACE_USDT_SITE(prov, name, argspec, ...)			\
	__asm__ __volatile__(DTRACE_USDT_ASM_SITE(prov, name, argspec)	\
			     : : __VA_ARGS__)

/* An argument: its spec "SIZE@%N" and its operand.  s is the size, negated
 * for a signed type, as a literal (the generated header knows the types);
 * 4f or 8f for a float or a double, which "nor" keeps out of the SSE
 * registers a uprobe cannot read. */
#define DTRACE_USDT_A(s, n)	DTRACE_USDT_STR(s) "@%" #n
#define DTRACE_USDT_O(v)	"nor"(v)

#define DTRACE_USDT_PROBE0(prov, name)					\
	__asm__ __volatile__(DTRACE_USDT_ASM_SITE(prov, name, ""))
#define DTRACE_USDT_PROBE1(prov, name, s0, a0)				\
	DTRACE_USDT_SITE(prov, name, DTRACE_USDT_A(s0, 0),		\
			 DTRACE_USDT_O(a0))
#define DTRACE_USDT_PROBE2(prov, name, s0, a0, s1, a1)			\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1),	\
			 DTRACE_USDT_O(a0), DTRACE_USDT_O(a1))
#define DTRACE_USDT_PROBE3(prov, name, s0, a0, s1, a1, s2, a2)		\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1) " "	\
			 DTRACE_USDT_A(s2, 2),				\
			 DTRACE_USDT_O(a0), DTRACE_USDT_O(a1),		\
			 DTRACE_USDT_O(a2))
#define DTRACE_USDT_PROBE4(prov, name, s0, a0, s1, a1, s2, a2, s3, a3)	\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1) " "	\
			 DTRACE_USDT_A(s2, 2) " " DTRACE_USDT_A(s3, 3),	\
			 DTRACE_USDT_O(a0), DTRACE_USDT_O(a1),		\
			 DTRACE_USDT_O(a2), DTRACE_USDT_O(a3))
#define DTRACE_USDT_PROBE5(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			   s4, a4)					\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1) " "	\
			 DTRACE_USDT_A(s2, 2) " " DTRACE_USDT_A(s3, 3) " "	\
			 DTRACE_USDT_A(s4, 4),				\
			 DTRACE_USDT_O(a0), DTRACE_USDT_O(a1),		\
			 DTRACE_USDT_O(a2), DTRACE_USDT_O(a3),		\
			 DTRACE_USDT_O(a4))
#define DTRACE_USDT_PROBE6(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			   s4, a4, s5, a5)				\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1) " "	\
			 DTRACE_USDT_A(s2, 2) " " DTRACE_USDT_A(s3, 3) " "	\
			 DTRACE_USDT_A(s4, 4) " " DTRACE_USDT_A(s5, 5),	\
			 DTRACE_USDT_O(a0), DTRACE_USDT_O(a1),		\
			 DTRACE_USDT_O(a2), DTRACE_USDT_O(a3),		\
			 DTRACE_USDT_O(a4), DTRACE_USDT_O(a5))
#define DTRACE_USDT_PROBE7(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			   s4, a4, s5, a5, s6, a6)			\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1) " "	\
			 DTRACE_USDT_A(s2, 2) " " DTRACE_USDT_A(s3, 3) " "	\
			 DTRACE_USDT_A(s4, 4) " " DTRACE_USDT_A(s5, 5) " "	\
			 DTRACE_USDT_A(s6, 6),				\
			 DTRACE_USDT_O(a0), DTRACE_USDT_O(a1),		\
			 DTRACE_USDT_O(a2), DTRACE_USDT_O(a3),		\
			 DTRACE_USDT_O(a4), DTRACE_USDT_O(a5),		\
			 DTRACE_USDT_O(a6))
#define DTRACE_USDT_PROBE8(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			   s4, a4, s5, a5, s6, a6, s7, a7)		\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1) " "	\
			 DTRACE_USDT_A(s2, 2) " " DTRACE_USDT_A(s3, 3) " "	\
			 DTRACE_USDT_A(s4, 4) " " DTRACE_USDT_A(s5, 5) " "	\
			 DTRACE_USDT_A(s6, 6) " " DTRACE_USDT_A(s7, 7),	\
			 DTRACE_USDT_O(a0), DTRACE_USDT_O(a1),		\
			 DTRACE_USDT_O(a2), DTRACE_USDT_O(a3),		\
			 DTRACE_USDT_O(a4), DTRACE_USDT_O(a5),		\
			 DTRACE_USDT_O(a6), DTRACE_USDT_O(a7))
#define DTRACE_USDT_PROBE9(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			   s4, a4, s5, a5, s6, a6, s7, a7, s8, a8)	\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1) " "	\
			 DTRACE_USDT_A(s2, 2) " " DTRACE_USDT_A(s3, 3) " "	\
			 DTRACE_USDT_A(s4, 4) " " DTRACE_USDT_A(s5, 5) " "	\
			 DTRACE_USDT_A(s6, 6) " " DTRACE_USDT_A(s7, 7) " "	\
			 DTRACE_USDT_A(s8, 8),				\
			 DTRACE_USDT_O(a0), DTRACE_USDT_O(a1),		\
			 DTRACE_USDT_O(a2), DTRACE_USDT_O(a3),		\
			 DTRACE_USDT_O(a4), DTRACE_USDT_O(a5),		\
			 DTRACE_USDT_O(a6), DTRACE_USDT_O(a7),		\
			 DTRACE_USDT_O(a8))
/* The specifications and operands of ten arguments, which the macros of
 * 10 and more arguments share. */
#define DTRACE_USDT_SPEC10(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9)	\
	DTRACE_USDT_A(s0, 0) " " DTRACE_USDT_A(s1, 1) " "		\
	DTRACE_USDT_A(s2, 2) " " DTRACE_USDT_A(s3, 3) " "		\
	DTRACE_USDT_A(s4, 4) " " DTRACE_USDT_A(s5, 5) " "		\
	DTRACE_USDT_A(s6, 6) " " DTRACE_USDT_A(s7, 7) " "		\
	DTRACE_USDT_A(s8, 8) " " DTRACE_USDT_A(s9, 9)
#define DTRACE_USDT_OPS10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)	\
	DTRACE_USDT_O(a0), DTRACE_USDT_O(a1), DTRACE_USDT_O(a2),	\
	DTRACE_USDT_O(a3), DTRACE_USDT_O(a4), DTRACE_USDT_O(a5),	\
	DTRACE_USDT_O(a6), DTRACE_USDT_O(a7), DTRACE_USDT_O(a8),	\
	DTRACE_USDT_O(a9)

#define DTRACE_USDT_PROBE10(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			    s4, a4, s5, a5, s6, a6, s7, a7, s8, a8, s9, a9) \
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_SPEC10(s0, s1, s2, s3, s4, s5, s6, s7, \
					    s8, s9),			\
			 DTRACE_USDT_OPS10(a0, a1, a2, a3, a4, a5, a6, a7, \
					   a8, a9))
#define DTRACE_USDT_PROBE11(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			    s4, a4, s5, a5, s6, a6, s7, a7, s8, a8, s9, a9, \
			    s10, a10)					\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_SPEC10(s0, s1, s2, s3, s4, s5, s6, s7, \
					    s8, s9) " "			\
			 DTRACE_USDT_A(s10, 10),			\
			 DTRACE_USDT_OPS10(a0, a1, a2, a3, a4, a5, a6, a7, \
					   a8, a9),			\
			 DTRACE_USDT_O(a10))
/* 12: as many as <sys/sdt.h> passes. */
#define DTRACE_USDT_PROBE12(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			    s4, a4, s5, a5, s6, a6, s7, a7, s8, a8, s9, a9, \
			    s10, a10, s11, a11)				\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_SPEC10(s0, s1, s2, s3, s4, s5, s6, s7, \
					    s8, s9) " "			\
			 DTRACE_USDT_A(s10, 10) " " DTRACE_USDT_A(s11, 11), \
			 DTRACE_USDT_OPS10(a0, a1, a2, a3, a4, a5, a6, a7, \
					   a8, a9),			\
			 DTRACE_USDT_O(a10), DTRACE_USDT_O(a11))

/*
 * 13 to 16 arguments.  An argument costs the asm statement one operand,
 * and GCC takes at most 30 operands in one; 16 is what the engine keeps
 * per probe (DTRACE_ARGS_MAX of <dtrace/provider.h>).
 */
#define DTRACE_USDT_PROBE13(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			    s4, a4, s5, a5, s6, a6, s7, a7, s8, a8,	\
			    s9, a9, s10, a10, s11, a11, s12, a12)	\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_SPEC10(s0, s1, s2, s3, s4, s5, s6, s7, \
					    s8, s9) " "			\
			 DTRACE_USDT_A(s10, 10) " "			\
			 DTRACE_USDT_A(s11, 11) " "			\
			 DTRACE_USDT_A(s12, 12),			\
			 DTRACE_USDT_OPS10(a0, a1, a2, a3, a4, a5, a6, a7, \
					   a8, a9),			\
			 DTRACE_USDT_O(a10), DTRACE_USDT_O(a11),	\
			 DTRACE_USDT_O(a12))

/* The specifications and operands of fourteen arguments, which the macros
 * of 14 and more arguments share. */
#define DTRACE_USDT_SPEC14(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10,	\
			   s11, s12, s13)				\
	DTRACE_USDT_SPEC10(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9) " "	\
	DTRACE_USDT_A(s10, 10) " " DTRACE_USDT_A(s11, 11) " "		\
	DTRACE_USDT_A(s12, 12) " " DTRACE_USDT_A(s13, 13)
#define DTRACE_USDT_OPS14(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,	\
			  a11, a12, a13)				\
	DTRACE_USDT_OPS10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9),	\
	DTRACE_USDT_O(a10), DTRACE_USDT_O(a11), DTRACE_USDT_O(a12),	\
	DTRACE_USDT_O(a13)

#define DTRACE_USDT_PROBE14(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			    s4, a4, s5, a5, s6, a6, s7, a7, s8, a8,	\
			    s9, a9, s10, a10, s11, a11, s12, a12,	\
			    s13, a13)					\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_SPEC14(s0, s1, s2, s3, s4, s5, s6, s7, \
					    s8, s9, s10, s11, s12, s13), \
			 DTRACE_USDT_OPS14(a0, a1, a2, a3, a4, a5, a6, a7, \
					   a8, a9, a10, a11, a12, a13))

#define DTRACE_USDT_PROBE15(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			    s4, a4, s5, a5, s6, a6, s7, a7, s8, a8,	\
			    s9, a9, s10, a10, s11, a11, s12, a12,	\
			    s13, a13, s14, a14)				\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_SPEC14(s0, s1, s2, s3, s4, s5, s6, s7, \
					    s8, s9, s10, s11, s12, s13) " " \
			 DTRACE_USDT_A(s14, 14),			\
			 DTRACE_USDT_OPS14(a0, a1, a2, a3, a4, a5, a6, a7, \
					   a8, a9, a10, a11, a12, a13),	\
			 DTRACE_USDT_O(a14))

/* 16: DTRACE_ARGS_MAX, the most a probe has here. */
#define DTRACE_USDT_PROBE16(prov, name, s0, a0, s1, a1, s2, a2, s3, a3,	\
			    s4, a4, s5, a5, s6, a6, s7, a7, s8, a8,	\
			    s9, a9, s10, a10, s11, a11, s12, a12,	\
			    s13, a13, s14, a14, s15, a15)		\
	DTRACE_USDT_SITE(prov, name,					\
			 DTRACE_USDT_SPEC14(s0, s1, s2, s3, s4, s5, s6, s7, \
					    s8, s9, s10, s11, s12, s13) " " \
			 DTRACE_USDT_A(s14, 14) " " DTRACE_USDT_A(s15, 15), \
			 DTRACE_USDT_OPS14(a0, a1, a2, a3, a4, a5, a6, a7, \
					   a8, a9, a10, a11, a12, a13),	\
			 DTRACE_USDT_O(a14), DTRACE_USDT_O(a15))

#endif /* DTRACE_USDT_H */
