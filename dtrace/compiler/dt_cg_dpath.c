/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_dpath.c: d_path(struct path *), the name of a file as the
 * kernel's d_path() writes it, made in BPF: the kernel's bpf_d_path()
 * is for fentry and LSM programs only, which the probes here are not.
 *
 * The path is built right to left in the comparison buffers (2 * strsize
 * bytes, free outside a comparison), from the dentry up: each step of a
 * bpf_loop() (at most strsize steps) either puts "/" and the dentry's
 * name before what is built and goes to its parent, or, at the root of
 * a mount (the dentry is its vfsmount's mnt_root, or its own parent),
 * goes on from the mount's mountpoint in the mount it is mounted on
 * (struct mount holds the vfsmount at mnt: container_of); the walk ends
 * at the root mount of the namespace (its mnt_parent is itself).  The
 * result is then copied to the start of a string temporary.
 *
 * As the kernel's: "/" for the root, " (deleted)" after the name of a
 * file that was unlinked (its dentry unhashed, and not a root).  Unlike
 * it: the path goes up to the root of the mount namespace, not to the
 * process's root (a chroot()ed process's paths name the directory it is
 * chrooted in); a name the kernel makes up (d_dname(): pipes, sockets,
 * anonymous inodes) is not made ("/"); a path longer than strsize - 1
 * characters keeps its last components that fit whole (so that the file's
 * own name stays), "/" first, and is "" when even the last does not.  Every offset is the kernel's BTF's;
 * reads go through bpf_probe_read_kernel(), a dentry freed meanwhile
 * ends the walk where it was.
 *
 * Every index into the buffer is checked against strsize before it
 * reaches a pointer, so the verifier sees the bound (a write of len
 * bytes at pos, both below strsize, stays inside 2 * strsize).
 */
#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)
#define SLOT(i)		((int16_t)(8 * (i)))	/* in the callback's ctx */

/* The loop context of the walk */
enum { DP_DENTRY, DP_MNT, DP_POS, DP_DONE, DP_MST, DP_NEXT, DP_NAME,
       DP_START };	/* DP_START: the position the walk starts at */
#define DP_CUT	2	/* DP_DONE when a name did not fit */

/* The kernel's offsets the walk reads, from BTF */
typedef struct dpath_offs {
	int32_t path_mnt, path_dentry;
	int32_t d_parent, d_name, d_hash_pprev;
	int32_t name_ptr, name_len;
	int32_t mnt_root;			/* struct vfsmount */
	int32_t mount_mnt, mnt_parent, mnt_mountpoint;	/* struct mount */
} dpath_offs_t;

/* The offsets; false when BTF lacks one */
static bool dpath_offsets(dt_cg_state_t *st, dpath_offs_t *o)
{
	int32_t d_hash = dt_cg_btf_offset(st, "dentry", "d_hash");
	int32_t pprev = dt_cg_btf_offset(st, "hlist_bl_node", "pprev");

	o->path_mnt = dt_cg_btf_offset(st, "path", "mnt");
	o->path_dentry = dt_cg_btf_offset(st, "path", "dentry");
	o->d_parent = dt_cg_btf_offset(st, "dentry", "d_parent");
	o->d_name = dt_cg_btf_offset(st, "dentry", "d_name");
	o->d_hash_pprev = d_hash < 0 || pprev < 0 ? -1 : d_hash + pprev;
	o->name_ptr = dt_cg_btf_offset(st, "qstr", "name");
	o->name_len = dt_cg_btf_offset(st, "qstr", "len");
	o->mnt_root = dt_cg_btf_offset(st, "vfsmount", "mnt_root");
	o->mount_mnt = dt_cg_btf_offset(st, "mount", "mnt");
	o->mnt_parent = dt_cg_btf_offset(st, "mount", "mnt_parent");
	o->mnt_mountpoint = dt_cg_btf_offset(st, "mount", "mnt_mountpoint");
	const int32_t *all = &o->path_mnt;
	for (size_t i = 0; i < sizeof(*o) / sizeof(int32_t); i++)
		if (all[i] < 0)
			return false;
	return true;
}

/* dst = the kernel's size bytes (4 or 8) at base + off, base a register
 * (it may be dst); goto fail when they cannot be read.  r8 is the mstate,
 * whose scratch area stages the read.  Uses r0-r5. */
static void kread(dt_cg_t *cx, int dst, int base, int32_t off, int size,
		  int fail)
{
	uint32_t scr = cx->st->off_scratch + 16;

	EMIT(DT_MOV64_REG(DT_R3, base));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, off));
	EMIT(DT_MOV64_REG(DT_R1, DT_R8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, (int32_t)scr));
	EMIT(DT_MOV64_IMM(DT_R2, size));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, fail);
	EMIT(DT_LOAD(size == 4 ? BPF_W : BPF_DW, dst, DT_R8, (int16_t)scr));
}

static void ctx_load(dt_cg_t *cx, int reg, int slot)
{
	EMIT(DT_LOAD(BPF_DW, reg, DT_R6, SLOT(slot)));
}

static void ctx_store(dt_cg_t *cx, int slot, int reg)
{
	EMIT(DT_STORE(BPF_DW, DT_R6, SLOT(slot), reg));
}

/* At the root of a mount: on from its mountpoint in its parent mount;
 * at the namespace's root mount (its own parent), done. */
static void step_mount(dt_cg_t *cx, const dpath_offs_t *o, int done,
		       int out)
{
	ctx_load(cx, DT_R9, DP_MNT);
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R9, o->mount_mnt));	/* the mount */
	kread(cx, DT_R0, DT_R9, o->mnt_parent, 8, done);
	dt_as_jump_reg(cx->as, BPF_JEQ, DT_R0, DT_R9, done);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R0, o->mount_mnt));
	ctx_store(cx, DP_NEXT, DT_R0);
	kread(cx, DT_R0, DT_R9, o->mnt_mountpoint, 8, done);
	ctx_store(cx, DP_DENTRY, DT_R0);
	ctx_load(cx, DT_R0, DP_NEXT);
	ctx_store(cx, DP_MNT, DT_R0);
	dt_as_jump(cx->as, BPF_JA, 0, 0, out);
}

/* "/" and the dentry's name before what is built, when both fit (else
 * the walk ends: the path keeps the components it has); then on from
 * its parent (DP_NEXT). */
static void step_name(dt_cg_t *cx, const dpath_offs_t *o, int done, int cut)
{
	int32_t last = (int32_t)cx->st->strsize - 1;
	uint32_t buf = cx->st->off_cmp;

	ctx_load(cx, DT_R9, DP_DENTRY);
	kread(cx, DT_R0, DT_R9, o->d_name + o->name_ptr, 8, done);
	ctx_store(cx, DP_NAME, DT_R0);
	kread(cx, DT_R9, DT_R9, o->d_name + o->name_len, 4, done);
	/* r9 = len, r0 = the new position: pos - len, with room for "/" */
	ctx_load(cx, DT_R0, DP_POS);
	EMIT(DT_MOV64_REG(DT_R1, DT_R9));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
	dt_as_jump_reg(cx->as, BPF_JGT, DT_R1, DT_R0, cut);
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R0, DT_R9));
	dt_as_jump(cx->as, BPF_JGT, DT_R0, last, done);	/* the verifier's */
	dt_as_jump(cx->as, BPF_JGT, DT_R9, last, done);
	ctx_store(cx, DP_POS, DT_R0);
	EMIT(DT_MOV64_REG(DT_R1, DT_R8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, (int32_t)buf));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R0));
	EMIT(DT_MOV64_REG(DT_R2, DT_R9));
	ctx_load(cx, DT_R3, DP_NAME);
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, done);
	ctx_load(cx, DT_R0, DP_POS);
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R0, 1));
	dt_as_jump(cx->as, BPF_JGT, DT_R0, last, done);	/* the verifier's */
	ctx_store(cx, DP_POS, DT_R0);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R8));
	EMIT(DT_STORE_IMM(BPF_B, DT_R0, (int16_t)buf, '/'));
	ctx_load(cx, DT_R0, DP_NEXT);
	ctx_store(cx, DP_DENTRY, DT_R0);
}

void dt_cg_dpath_step(dt_cg_t *cx)
{
	dpath_offs_t o;
	int done = dt_as_label(cx->as), out = dt_as_label(cx->as);
	int mount = dt_as_label(cx->as), cut = dt_as_label(cx->as);

	if (!dpath_offsets(cx->st, &o))
		dt_cg_ice(cx, "d_path offsets");
	ctx_load(cx, DT_R0, DP_DONE);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, out);
	ctx_load(cx, DT_R8, DP_MST);
	/* a mount's root: its vfsmount's mnt_root, or its own parent */
	ctx_load(cx, DT_R9, DP_MNT);
	kread(cx, DT_R9, DT_R9, o.mnt_root, 8, done);
	ctx_load(cx, DT_R0, DP_DENTRY);
	dt_as_jump_reg(cx->as, BPF_JEQ, DT_R0, DT_R9, mount);
	kread(cx, DT_R9, DT_R0, o.d_parent, 8, done);
	ctx_load(cx, DT_R0, DP_DENTRY);
	dt_as_jump_reg(cx->as, BPF_JEQ, DT_R0, DT_R9, mount);
	ctx_store(cx, DP_NEXT, DT_R9);
	step_name(cx, &o, done, cut);
	dt_as_jump(cx->as, BPF_JA, 0, 0, out);
	dt_as_place(cx->as, mount);
	step_mount(cx, &o, done, out);
	dt_as_place(cx->as, cut);
	EMIT(DT_STORE_IMM(BPF_DW, DT_R6, SLOT(DP_DONE), DP_CUT));
	dt_as_jump(cx->as, BPF_JA, 0, 0, out);
	dt_as_place(cx->as, done);
	EMIT(DT_STORE_IMM(BPF_DW, DT_R6, SLOT(DP_DONE), 1));
	dt_as_place(cx->as, out);
}

/* Loop slot i = the kernel's 8 bytes at path + off; a path that cannot be
 * read faults (an invalid address, the path's).  Uses r0-r5. */
static void path_member(dt_cg_t *cx, int i, int path, int32_t off)
{
	uint32_t scr = cx->st->off_scratch + 16;

	dt_cg_mst_ptr(cx, DT_R1, scr);
	EMIT(DT_MOV64_IMM(DT_R2, 8));
	EMIT(DT_MOV64_REG(DT_R3, path));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, off));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, path);
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R9, (int16_t)scr));
	dt_cg_loop_slot(cx, i, DT_R0);
}

#define DP_DELETED	" (deleted)"

/* The kernel's d_unlinked(): the dentry (slot DP_DENTRY) is unhashed
 * (d_hash.pprev NULL) and not a root (its own parent): " (deleted)" ends
 * the buffer, the position before it.  A dentry that cannot be read is
 * taken as linked. */
static void deleted_suffix(dt_cg_t *cx, const dpath_offs_t *o)
{
	uint32_t end = cx->st->off_cmp + cx->st->strsize - 1;
	uint32_t len = (uint32_t)strlen(DP_DELETED);
	uint32_t scr = cx->st->off_scratch + 16;
	int linked = dt_as_label(cx->as);

	if (len + 1 >= cx->st->strsize)
		return;			/* no room for it and a name */
	for (int i = 0; i < 2; i++) {
		dt_cg_mst_ptr(cx, DT_R1, scr);
		EMIT(DT_MOV64_IMM(DT_R2, 8));
		dt_cg_loop_load(cx, DT_R3, DP_DENTRY);
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, i == 0 ? o->d_hash_pprev
							 : o->d_parent));
		EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
		dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, linked);
		EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R9, (int16_t)scr));
		if (i == 0) {
			dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, linked);
		} else {
			dt_cg_loop_load(cx, DT_R1, DP_DENTRY);
			dt_as_jump_reg(cx->as, BPF_JEQ, DT_R0, DT_R1, linked);
		}
	}
	for (uint32_t i = 0; i < len; i++)
		EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(end - len + i),
				  DP_DELETED[i]));
	dt_cg_loop_slot_imm(cx, DP_POS, (int32_t)(cx->st->strsize - 1 - len));
	dt_as_place(cx->as, linked);
}

/* Nothing put before the end, at the root: "/" (a path cut before its
 * last component stays empty) */
static void root_slash(dt_cg_t *cx)
{
	int some = dt_as_label(cx->as);
	int32_t last = (int32_t)cx->st->strsize - 1;

	dt_cg_loop_load(cx, DT_R0, DP_DONE);
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, DP_CUT, some);
	dt_cg_loop_load(cx, DT_R0, DP_POS);
	dt_cg_loop_load(cx, DT_R1, DP_START);
	dt_as_jump_reg(cx->as, BPF_JNE, DT_R0, DT_R1, some);
	dt_as_jump(cx->as, BPF_JGT, DT_R0, last, some);	/* the verifier's */
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, some);
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R0, 1));
	dt_cg_loop_slot(cx, DP_POS, DT_R0);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R9));
	EMIT(DT_STORE_IMM(BPF_B, DT_R0, (int16_t)cx->st->off_cmp, '/'));
	dt_as_place(cx->as, some);
}

int dt_cg_d_path(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t ss = cx->st->strsize, buf = cx->st->off_cmp;
	dpath_offs_t o;

	if (!dpath_offsets(cx->st, &o))
		dt_pcb_error(cx->pcb, D_IDENT_UNDEF, n->line, "d_path( ) needs "
			     "the kernel's BTF");
	if (!dt_cg_have_loop(cx))
		dt_pcb_error(cx->pcb, D_UNKNOWN, n->line, "d_path( ) needs "
			     "bpf_loop(), which this kernel lacks");
	int p = dt_cg_expr(cx, n->args);

	dt_cg_loop_init(cx);
	path_member(cx, DP_DENTRY, p, o.path_dentry);
	path_member(cx, DP_MNT, p, o.path_mnt);
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(buf + ss - 1), 0));
	dt_cg_loop_slot_imm(cx, DP_POS, (int32_t)ss - 1);
	deleted_suffix(cx, &o);
	dt_cg_loop_load(cx, DT_R0, DP_POS);
	dt_cg_loop_slot(cx, DP_START, DT_R0);
	dt_cg_loop_slot(cx, DP_MST, DT_R9);
	dt_cg_dpath_loop(cx);
	root_slash(cx);
	/* to the start of a temporary */
	uint32_t t = dt_cg_temp(cx);
	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)ss));
	dt_cg_loop_load(cx, DT_R3, DP_POS);
	int in = dt_as_label(cx->as);
	dt_as_jump(cx->as, BPF_JLE, DT_R3, (int32_t)ss - 1, in);
	EMIT(DT_MOV64_IMM(DT_R3, (int32_t)ss - 1));	/* the verifier's */
	dt_as_place(cx->as, in);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R9));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, (int32_t)buf));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(t + ss - 1), 0));
	dt_cg_mst_ptr(cx, p, t);
	return p;
}
