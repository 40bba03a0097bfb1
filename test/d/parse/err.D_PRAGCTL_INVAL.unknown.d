/* An unknown control directive. */
#frobnicate now
BEGIN
{
}
