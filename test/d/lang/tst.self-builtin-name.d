/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* self-> and this-> variables may take a built-in variable's name. */
self int pid;

BEGIN
{
	self->pid = 7;
	this->timestamp = 8;
	printf("%d %d\n", self->pid, this->timestamp);
	exit(0);
}
