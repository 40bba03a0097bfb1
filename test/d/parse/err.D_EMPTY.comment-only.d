/* SPDX-License-Identifier: MIT */
/* nothing but a comment */
