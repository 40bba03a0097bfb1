/* Must fail to compile: exit() without its argument. */
BEGIN
{
	exit();
}
