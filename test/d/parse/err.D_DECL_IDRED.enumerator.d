/* SPDX-License-Identifier: MIT */
/* Two enumerators of one name. */
enum e { A, A };
BEGIN
{
}
