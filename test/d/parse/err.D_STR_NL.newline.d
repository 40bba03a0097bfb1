BEGIN
{
	x = "abc
";
}
