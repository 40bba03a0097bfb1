/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* More aggregations than a BPF program may use maps: aggregations of one
 * shape share a map. */
BEGIN
{
	@a1 = sum(1);
	@a2 = sum(2);
	@a3 = sum(3);
	@a4 = sum(4);
	@a5 = sum(5);
	@a6 = sum(6);
	@a7 = sum(7);
	@a8 = sum(8);
	@a9 = sum(9);
	@a10 = sum(10);
	@a11 = sum(11);
	@a12 = sum(12);
	@a13 = sum(13);
	@a14 = sum(14);
	@a15 = sum(15);
	@a16 = sum(16);
	@a17 = sum(17);
	@a18 = sum(18);
	@a19 = sum(19);
	@a20 = sum(20);
	@a21 = sum(21);
	@a22 = sum(22);
	@a23 = sum(23);
	@a24 = sum(24);
	@a25 = sum(25);
	@a26 = sum(26);
	@a27 = sum(27);
	@a28 = sum(28);
	@a29 = sum(29);
	@a30 = sum(30);
	@a31 = sum(31);
	@a32 = sum(32);
	@a33 = sum(33);
	@a34 = sum(34);
	@a35 = sum(35);
	@a36 = sum(36);
	@a37 = sum(37);
	@a38 = sum(38);
	@a39 = sum(39);
	@a40 = sum(40);
	@a41 = sum(41);
	@a42 = sum(42);
	@a43 = sum(43);
	@a44 = sum(44);
	@a45 = sum(45);
	@a46 = sum(46);
	@a47 = sum(47);
	@a48 = sum(48);
	@a49 = sum(49);
	@a50 = sum(50);
	@a51 = sum(51);
	@a52 = sum(52);
	@a53 = sum(53);
	@a54 = sum(54);
	@a55 = sum(55);
	@a56 = sum(56);
	@a57 = sum(57);
	@a58 = sum(58);
	@a59 = sum(59);
	@a60 = sum(60);
	@a61 = sum(61);
	@a62 = sum(62);
	@a63 = sum(63);
	@a64 = sum(64);
	@a65 = sum(65);
	@a66 = sum(66);
	@k["key"] = count();
	@l[1, "two"] = max(3);
	exit(0);
}
