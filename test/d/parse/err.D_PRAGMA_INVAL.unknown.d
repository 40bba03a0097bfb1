#pragma D frobnicate
BEGIN
{
}
