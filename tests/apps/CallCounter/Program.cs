// CallCounter N
//
// Calls Clrscope.TestApps.Counted.Target(int) exactly N times and
// Clrscope.TestApps.Counted.Other() exactly 2*N times (both NoInlining), then exits 0.
//
// stdout: "pid <N>", then "called <N>".
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

public static class Counted
{
    public static long TargetCalls;
    public static long OtherCalls;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Target(int i)
    {
        TargetCalls++;
        Sink += i;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Other()
    {
        OtherCalls++;
    }

    public static long Sink;
}

internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int n))
        {
            Console.Error.WriteLine("usage: CallCounter N");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        CallAll(n);

        Say("called " + Counted.TargetCalls.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void CallAll(int n)
    {
        for (int i = 0; i < n; i++)
        {
            Counted.Target(i);
            Counted.Other();
            Counted.Other();
        }
    }
}
