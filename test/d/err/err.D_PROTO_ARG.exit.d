/* Must fail to compile: exit() with a string argument. */
BEGIN
{
	exit("zero");
}
