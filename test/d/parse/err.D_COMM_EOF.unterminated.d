BEGIN
{
	/* never closed
}
