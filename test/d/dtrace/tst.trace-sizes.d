/*
 * trace() of each integer size, default output: the width follows the
 * size of the type.
 */
BEGIN
{
	trace((char)-1);
	trace((short)-1);
	trace((int)-1);
	trace((long long)-1);
	exit(0);
}
