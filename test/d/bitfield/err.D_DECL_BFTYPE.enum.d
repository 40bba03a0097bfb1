/* SPDX-License-Identifier: MIT */
/* An enum is no integer type for a D bit-field, as in DTrace. */
enum e { A, B };
struct s {
	enum e v : 2;
};

BEGIN
{
	exit(0);
}
