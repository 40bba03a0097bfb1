/* Must fail to compile: an undefined variable read. */
BEGIN
{
	trace(nosuchvar);
}
