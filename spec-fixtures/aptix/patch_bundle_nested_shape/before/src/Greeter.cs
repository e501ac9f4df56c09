namespace App
{
    public class Greeter
    {
        public void OldMethod()
        {
            _adminLogger.Trace("[OldTag]");
        }
    }
}
