// CallBench N
//
// A call-heavy workload for the instrumentation benchmark. Prints "pid <N>" and
// "ready", then waits for one line on stdin (so that a dial can be set first),
// then calls Clrscope.TestApps.Bench.Step(int) (NoInlining) exactly N times and
// prints "elapsed_ms <ms>" for that loop alone, and exits 0.
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

public static class Bench
{
    public static long Sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Step(int i)
    {
        Sink += i;
    }
}

internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int n))
        {
            Console.Error.WriteLine("usage: CallBench N");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Run(1000); // compiled before the clock starts
        Say("ready");
        Console.In.ReadLine();

        var sw = Stopwatch.StartNew();
        Run(n);
        sw.Stop();
        Say("elapsed_ms " + sw.Elapsed.TotalMilliseconds.ToString("F1", CultureInfo.InvariantCulture));
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Run(int n)
    {
        for (int i = 0; i < n; i++)
        {
            Bench.Step(i);
        }
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}
