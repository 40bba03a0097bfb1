/* SPDX-License-Identifier: MIT */
/*
 * usdt_ast.h: the provider of test/usdt/prov.d built by hand, for tests of
 * dtrace -h / -G that run before (or without) the parser:
 *
 *	provider myapp {
 *		probe tick(int);
 *		probe query__start(int a, char *b) : (char *b, int a);
 *		probe noargs();
 *	};
 */
#include <stdlib.h>
#include <string.h>
#include "dt_impl.h"

static dt_probedecl_t *usdt_ast_probe(dt_typetab_t *tt, const char *name,
				      int nargs, dt_type_t **args,
				      int nxargs, dt_type_t **xargs,
				      int *mapping)
{
	dt_probedecl_t *p = dt_zalloc(sizeof(*p));

	p->name = name;
	p->nargs = nargs;
	p->args = args;
	p->nxargs = nxargs;
	p->xargs = xargs;
	p->mapping = mapping;
	(void)tt;
	return p;
}

static dt_program_ast_t *usdt_ast_build(dt_typetab_t *tt)
{
	static dt_type_t *tick_args[1], *qs_args[2], *qs_xargs[2];
	static int tick_map[1] = { 0 }, qs_map[2] = { 1, 0 };
	dt_program_ast_t *prog = dt_zalloc(sizeof(*prog));
	dt_providerdecl_t *pv = dt_zalloc(sizeof(*pv));
	dt_type_t *i32 = dt_type_int(tt, 4, true);
	dt_type_t *str = dt_type_ptr(tt, dt_type_int(tt, 1, true));

	tick_args[0] = i32;
	qs_args[0] = i32;
	qs_args[1] = str;
	qs_xargs[0] = str;
	qs_xargs[1] = i32;
	pv->name = "myapp";
	pv->attrs[0] = "Evolving/Evolving/Common";
	pv->probes = usdt_ast_probe(tt, "tick", 1, tick_args, 1, tick_args,
				    tick_map);
	pv->probes->next = usdt_ast_probe(tt, "query__start", 2, qs_args, 2,
					  qs_xargs, qs_map);
	pv->probes->next->next = usdt_ast_probe(tt, "noargs", 0, NULL, 0,
						NULL, NULL);
	prog->providers = pv;
	return prog;
}

static void usdt_ast_free(dt_program_ast_t *prog)
{
	for (dt_providerdecl_t *pv = prog->providers, *npv; pv; pv = npv) {
		npv = pv->next;
		for (dt_probedecl_t *p = pv->probes, *np; p; p = np) {
			np = p->next;
			free(p);
		}
		free(pv);
	}
	free(prog);
}
