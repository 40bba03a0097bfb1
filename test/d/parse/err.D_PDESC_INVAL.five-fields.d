/* SPDX-License-Identifier: MIT */
a:b:c:d:e
{
}
