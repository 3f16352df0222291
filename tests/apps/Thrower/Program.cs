// Thrower N
//
// Throws and catches exactly N ThrowerException ("boom <i>"), each thrown three frames
// below Main (Main -> Throw -> Level1 -> Level2 -> throw) and caught in Main's loop,
// then exactly one System.InvalidOperationException, also caught in Main, whose message
// ("invalid", CR, LF, tab, then 600 'x') has control characters and is long.
// Then sleeps 300 ms and exits 0.
//
// stdout: "pid <N>", then "caught <N+1>".
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

public sealed class ThrowerException : Exception
{
    public ThrowerException(string message) : base(message)
    {
    }
}

internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int n))
        {
            Console.Error.WriteLine("usage: Thrower N");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        int caught = 0;
        for (int i = 0; i < n; i++)
        {
            try
            {
                Throw(i);
            }
            catch (ThrowerException)
            {
                caught++;
            }
        }

        try
        {
            ThrowInvalid();
        }
        catch (InvalidOperationException)
        {
            caught++;
        }

        Say("caught " + caught.ToString(CultureInfo.InvariantCulture));
        Thread.Sleep(300);
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Throw(int i) => Level1(i);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Level1(int i) => Level2(i);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Level2(int i) =>
        throw new ThrowerException("boom " + i.ToString(CultureInfo.InvariantCulture));

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowInvalid() =>
        throw new InvalidOperationException("invalid\r\n\t" + new string('x', 600));
}
