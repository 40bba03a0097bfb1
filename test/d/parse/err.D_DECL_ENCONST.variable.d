/* SPDX-License-Identifier: MIT */
/* An enumerator's value must be a constant expression. */
int v;
enum e { A = v };
BEGIN
{
}
