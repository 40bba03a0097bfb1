/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * The string functions that scan their operand take a char * (or a
 * void *) to D scratch memory as they take a string: each loads and
 * gives the string's result.
 */
BEGIN
{
	this->p = (char *)alloca(8);
	this->p[0] = 'a';
	this->p[1] = '/';
	this->p[2] = 'b';
	this->v = (void *)this->p;
	printf("%s %s %s %s %s\n", toupper(this->p), tolower(this->v),
	    basename(this->p), dirname(this->p), cleanpath(this->v));
	printf("%s %s\n", strchr(this->p, '/'), strrchr(this->v, 'a'));
	exit(0);
}
