/* SPDX-License-Identifier: MIT */
/* An enumerator's value fits in an int. */
enum e { A = 2147483648 };
BEGIN
{
}
