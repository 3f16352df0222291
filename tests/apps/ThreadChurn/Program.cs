// ThreadChurn THREADS SECONDS
//
// Keeps THREADS managed threads alive at all times for SECONDS: each does a
// few milliseconds of CPU work (Churn.Work) and ends, and a new one takes its place, so
// threads are created and destroyed continuously.  A stress target for the
// samplers (thread ids come and go, and are reused).
//
// stdout: "pid <N>", then "started <total threads>" at the end.
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length != 2
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int threads) || threads < 1
            || !double.TryParse(args[1], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds) || seconds <= 0)
        {
            Console.Error.WriteLine("usage: ThreadChurn THREADS SECONDS");
            return 2;
        }
        Console.Out.WriteLine("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long started = 0;
        var running = new List<Thread>();
        while (Stopwatch.GetTimestamp() < deadline)
        {
            running.RemoveAll(t => !t.IsAlive);
            while (running.Count < threads)
            {
                var t = new Thread(Churn.Work) { IsBackground = true, Name = "churn-" + started };
                t.Start();
                running.Add(t);
                started++;
            }
            Thread.Sleep(1);
        }
        foreach (var t in running)
        {
            t.Join();
        }
        Console.Out.WriteLine("started " + started.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
        return 0;
    }
}

internal static class Churn
{
    public static double Sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Work()
    {
        double d = 1;
        for (int i = 0; i < 2_000_000; i++)
        {
            d = d * 1.000001 + (i & 7);
        }
        Sink = d;
    }
}
