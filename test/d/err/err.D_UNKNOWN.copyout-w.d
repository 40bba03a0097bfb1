/* @dtrace-opts: -w */
/* SPDX-License-Identifier: MIT */
/* copyout() is DTrace's, a destructive subroutine: with -w it is refused,
 * since the kernel keeps BPF programs from writing user memory
 * (bpf_probe_write_user() under lockdown). */
BEGIN
{
	this->buf = alloca(4);
	copyout(this->buf, 0, 4);
}
