int x;
int x;
BEGIN
{
}
