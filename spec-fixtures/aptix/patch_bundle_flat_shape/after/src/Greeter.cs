namespace App
{
    public class Greeter
    {
        public void NewMethod()
        {
            _adminLogger.Trace("[NewTag]");
        }
    }
}
