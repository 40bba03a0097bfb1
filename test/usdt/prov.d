/* SPDX-License-Identifier: MIT */
provider myapp {
	probe tick(int);
	probe query__start(int a, char *b) : (char *b, int a);
	probe noargs();
};
#pragma D attributes Evolving/Evolving/Common provider myapp provider
