/* SPDX-License-Identifier: MIT */
/*
 * dt_lib_psinfo.c: psinfo.d, the D library built into dtrace: DTrace's
 * views of the current process, thread and CPU (curpsinfo, curlwpsinfo,
 * curcpu) and the types psinfo_t, lwpsinfo_t and cpuinfo_t, translated
 * from the kernel's struct task_struct through its BTF.  A psinfo_t is
 * the same from any thread of the process (its leader's name, the
 * process's ids, credentials and memory).
 *
 * dt_lib.c reads it after the library directories (a psinfo.d of theirs
 * replaces it), on a kernel with BTF, for a program that names
 * one of its identifiers: declaring it reads the kernel's BTF, which a
 * program that does not use it need not pay for.  The members are those
 * the kernel has an equivalent of; the numbers are Linux's:
 * enum pid_type's PIDTYPE_PGID (2) and PIDTYPE_SID (3); TASK_INTERRUPTIBLE
 * and TASK_UNINTERRUPTIBLE (3) sleep, __TASK_STOPPED and __TASK_TRACED
 * (12) stop, EXIT_ZOMBIE (32); a nice value is static_prio - 120.
 */
#include <stddef.h>

#include "dt_lib_psinfo.h"

const char dt_lib_psinfo_name[] = "psinfo.d";

const char dt_lib_psinfo_text[] =
"typedef int processorid_t;\n"
"\n"
"typedef struct psinfo {\n"
"	int pr_nlwp;		/* threads */\n"
"	pid_t pr_pid;\n"
"	pid_t pr_ppid;\n"
"	pid_t pr_pgid;\n"
"	pid_t pr_sid;\n"
"	uid_t pr_uid;\n"
"	uid_t pr_euid;\n"
"	gid_t pr_gid;\n"
"	gid_t pr_egid;\n"
"	uintptr_t pr_addr;	/* the process's struct task_struct */\n"
"	char pr_fname[16];	/* the program's name, as comm */\n"
"	string pr_psargs;	/* its command line, d_execargs() */\n"
"} psinfo_t;\n"
"\n"
"typedef struct lwpsinfo {\n"
"	id_t pr_lwpid;\n"
"	uintptr_t pr_addr;	/* the thread's struct task_struct */\n"
"	char pr_state;		/* SSLEEP... */\n"
"	char pr_sname;		/* 'S', 'T', 'Z', 'O', 'R' */\n"
"	char pr_nice;\n"
"	int pr_pri;\n"
"	processorid_t pr_onpro;	/* its CPU */\n"
"} lwpsinfo_t;\n"
"\n"
"typedef struct cpuinfo {\n"
"	processorid_t cpu_id;\n"
"} cpuinfo_t;\n"
"\n"
"inline char SSLEEP = 1;\n"
"inline char SRUN = 2;\n"
"inline char SZOMB = 3;\n"
"inline char SSTOP = 4;\n"
"inline char SIDL = 5;\n"
"inline char SONPROC = 6;\n"
"inline char SWAIT = 7;\n"
"\n"
"translator psinfo_t < struct task_struct *T > {\n"
"	pr_nlwp = T->signal->nr_threads;\n"
"	pr_pid = T->tgid;\n"
"	pr_ppid = T->real_parent->tgid;\n"
"	pr_pgid = ((struct upid *)&T->signal->pids[2]->numbers)->nr;\n"
"	pr_sid = ((struct upid *)&T->signal->pids[3]->numbers)->nr;\n"
"	pr_uid = T->cred->uid.val;\n"
"	pr_euid = T->cred->euid.val;\n"
"	pr_gid = T->cred->gid.val;\n"
"	pr_egid = T->cred->egid.val;\n"
"	pr_addr = (uintptr_t)T->group_leader;\n"
"	pr_fname = T->group_leader->comm;\n"
"	pr_psargs = d_execargs(T);\n"
"};\n"
"\n"
"translator lwpsinfo_t < struct task_struct *T > {\n"
"	pr_lwpid = T->pid;\n"
"	pr_addr = (uintptr_t)T;\n"
"	pr_state = T->__state & 3 ? SSLEEP : T->__state & 12 ? SSTOP :\n"
"	    T->exit_state & 32 ? SZOMB : T->on_cpu ? SONPROC : SRUN;\n"
"	pr_sname = T->__state & 3 ? 'S' : T->__state & 12 ? 'T' :\n"
"	    T->exit_state & 32 ? 'Z' : T->on_cpu ? 'O' : 'R';\n"
"	pr_nice = T->static_prio - 120;\n"
"	pr_pri = T->prio;\n"
"	pr_onpro = T->thread_info.cpu;\n"
"};\n"
"\n"
"translator cpuinfo_t < struct task_struct *T > {\n"
"	cpu_id = cpu;\n"
"};\n"
"\n"
"inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);\n"
"inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);\n"
"inline cpuinfo_t *curcpu = xlate <cpuinfo_t *> (curthread);\n";

/* The words of a program that may use it (curlwpsinfo, psinfo_t, a
 * member of one: the sched provider's args[0]->pr_lwpid...). */
const char *const dt_lib_psinfo_words[] = {
	"psinfo", "curcpu", "cpuinfo_t", "pr_", "cpu_id", NULL,
};
