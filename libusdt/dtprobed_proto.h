/* SPDX-License-Identifier: MIT */
/*
 * dtprobed_proto.h: the registration message, version 1.
 *
 * Written by the registration code that `dtrace -G` links into a program
 * (dtrace/cmd/dt_link.c generates it) and read by dtprobed, which trusts
 * none of it.  Part of the USDT contract (libusdt/README.md).  One
 * message per SOCK_SEQPACKET packet, at most DTPV_MSG_MAX bytes.
 * All integers native (little-endian x86_64), all offsets relative to the
 * start of the message, every string NUL-terminated inside the string table.
 *
 *	dtpv_msg_t		header, 88 bytes
 *	dtpv_probe_t[nprobes]	at probes_off
 *	uint32_t types[ntypes]	at types_off: string offsets of type names
 *				(and the argument mappings past
 *				DTPV_MAPPING_INLINE, see dtpv_probe_t)
 *	dtpv_site_t[nsites]	at sites_off: the module's sites of this
 *				provider, found at run time
 *	char strtab[strtab_size] at strtab_off; offset 0 is ""
 *
 * The part from probes_off on, except sites, is fixed per provider and
 * lives in the -G object's section .dtrace_prov (with a zero header), so
 * `readelf -x .dtrace_prov` shows what a program will register
 * (usdt_decl.h: its writer and reader).
 *
 * Handshake (same version).  After each REGISTER or UNREGISTER message the
 * daemon answers the sender with one dtpv_notice_t, op DTPV_OP_DONE; the
 * registration code waits for it (bounded) only after a REGISTER.  A dtrace
 * session subscribes by sending a bare dtpv_msg_t header (size 88, op
 * DTPV_OP_SUBSCRIBE) and keeping the connection open: whenever a process
 * registers, the daemon records it, sends every subscriber a dtpv_notice_t
 * (op DTPV_OP_NOTICE, the pid from SO_PEERCRED) and waits a bounded time
 * for each one's DTPV_OP_ACK with the same pid before it answers the
 * registering process, so probes are placed before its first firing.
 * With no session subscribed, the daemon answers a registration as soon as
 * it has read the process's mappings, and records it afterwards; a reader
 * of the state files sends a bare header with op DTPV_OP_SYNC and waits
 * for its DTPV_OP_DONE, which comes once every registration answered
 * before is recorded.  A registration refused before it is answered (its
 * user past a budget, told by the header's count of sites) is answered
 * with DTPV_OP_REFUSED; the registration code takes any answer as the
 * end of its wait.
 *
 * The privileged socket.  Beside its socket (mode 0666) the daemon listens
 * on the same path with DTPV_PRIV_SUFFIX appended, mode 0600, which only
 * root and the daemon's own user reach: root's registration code connects
 * there first (the public socket when it finds none), so that no other
 * user's connect flood fills the queue root's connections wait in (one
 * of 16 processes lost 1 in 10 of root's registrations, unseen by the
 * daemon).  The same messages go over both.
 */
#ifndef DTPROBED_PROTO_H
#define DTPROBED_PROTO_H

#include <stdint.h>

#define DTPV_MAGIC	"DTPV"
#define DTPV_VERSION	1
#define DTPV_MSG_MAX	(1u << 20)
#define DTPV_PRIV_SUFFIX ".priv"	/* the privileged socket's path */
/* Beside the socket, a file (mode 0644, empty) that exists while a dtrace
 * session may want the processes that programs fork registered: one is
 * subscribed, or one read the state in the last DTPV_TRACING_MS.  dtrace
 * -G's fork handler registers a child only then, so that a child forked
 * while nothing traces costs the daemon nothing; a session that starts
 * later finds it among the processes. */
#define DTPV_TRACING_SUFFIX ".tracing"
#define DTPV_TRACING_MS	60000
#define DTPV_ARGS_MAX	16	/* as <dtrace/usdt.h> passes at most (12
				   until the site macros passed 16) */
#define DTPV_MAPPING_INLINE 12	/* mappings a dtpv_probe_t holds */
#define DTPV_PROBES_MAX	100000
#define DTPV_SITES_MAX	200000
#define DTPV_NAME_MAX	256	/* provider, probe and type names */

enum dtpv_op {
	DTPV_OP_REGISTER = 1,
	DTPV_OP_UNREGISTER = 2,
	DTPV_OP_SUBSCRIBE = 3,	/* session -> daemon, bare header */
	DTPV_OP_NOTICE = 4,	/* daemon -> subscriber: pid registered */
	DTPV_OP_ACK = 5,	/* subscriber -> daemon: pid's probes placed */
	DTPV_OP_DONE = 6,	/* daemon -> registering process */
	DTPV_OP_SYNC = 7,	/* reader of the state -> daemon, bare header */
	DTPV_OP_REFUSED = 8,	/* daemon -> registering process, instead of
				   DTPV_OP_DONE: refused before it was
				   answered (its user's budget) */
};

/* The handshake's short messages, one per packet. */
#define DTPN_MAGIC	"DTPN"
typedef struct dtpv_notice {
	char magic[4];		/* DTPN_MAGIC */
	uint16_t version;	/* DTPV_VERSION */
	uint16_t op;		/* DTPV_OP_NOTICE, _ACK or _DONE */
	uint32_t pid;		/* the registered process */
	uint32_t pad;
} dtpv_notice_t;

typedef struct dtpv_msg {
	char magic[4];		/* DTPV_MAGIC */
	uint16_t version;	/* DTPV_VERSION */
	uint16_t op;		/* dtpv_op */
	uint32_t size;		/* of the whole message */
	uint32_t provider;	/* string offset */
	uint32_t attrs[5];	/* string offsets of "Name/Name/Class", 0: none */
	uint32_t nprobes, probes_off;
	uint32_t ntypes, types_off;
	uint32_t nsites, sites_off;
	uint32_t strtab_off, strtab_size;
	uint64_t base;		/* run-time address of a byte of the module
				   (its .stapsdt.base marker) */
	uint64_t base_link;	/* link-time address of that byte, 0 unknown */
} dtpv_msg_t;

typedef struct dtpv_probe {
	uint32_t name;		/* string offset, as declared */
	uint8_t nargs, nxargs;	/* <= DTPV_ARGS_MAX each */
	uint16_t pad;
	uint32_t native;	/* index in types of the first native type */
	uint32_t xlate;		/* index in types of the first xlate type */
	uint8_t mapping[DTPV_MAPPING_INLINE];
				/* args[i] is native mapping[i]; [10] and
				   [11] were padding, 0, when there were 10
				   at most.  Those of args[12] on are words
				   of types[] (dtpv_mapping_index()) */
} dtpv_probe_t;

/* The index in types[] of the mapping of translated argument i past the
 * inline ones (i >= DTPV_MAPPING_INLINE): such mappings follow the
 * probe's translated types, one word each, so that a probe of at most 12
 * arguments is written as before. */
static inline uint64_t dtpv_mapping_index(const dtpv_probe_t *p, uint32_t i)
{
	return (uint64_t)p->xlate + p->nxargs + (i - DTPV_MAPPING_INLINE);
}

typedef struct dtpv_site {
	uint64_t addr;		/* run-time address of the nop */
	uint64_t sema;		/* run-time address of the semaphore */
	uint32_t probe;		/* index in probes */
	uint32_t pad;
} dtpv_site_t;

_Static_assert(sizeof(dtpv_msg_t) == 88, "dtpv_msg_t layout");
_Static_assert(sizeof(dtpv_probe_t) == 28, "dtpv_probe_t layout");
_Static_assert(sizeof(dtpv_site_t) == 24, "dtpv_site_t layout");
_Static_assert(sizeof(dtpv_notice_t) == 16, "dtpv_notice_t layout");

#endif /* DTPROBED_PROTO_H */
