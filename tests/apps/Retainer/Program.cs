// Retainer N SECONDS
//
// Creates exactly N Clrscope.TestApps.Retained objects (each with an int[4] payload),
// keeps them in a static List, then idles in managed code (Thread.Sleep loop) for
// SECONDS and exits 0.
//
// stdout: "pid <N>", then "retained <N>".
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

public sealed class Retained
{
    public readonly int Id;
    public readonly int[] Payload;

    public Retained(int id)
    {
        Id = id;
        Payload = new int[4] { id, id + 1, id + 2, id + 3 };
    }
}

internal static class Program
{
    private static readonly List<Retained> s_retained = new();

    private static int Main(string[] args)
    {
        if (args.Length != 2
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int n)
            || !double.TryParse(args[1], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
            || double.IsNaN(seconds) || double.IsInfinity(seconds) || seconds < 0)
        {
            Console.Error.WriteLine("usage: Retainer N SECONDS");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        Fill(n);
        Say("retained " + s_retained.Count.ToString(CultureInfo.InvariantCulture));

        Idle(seconds);
        GC.KeepAlive(s_retained);
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Fill(int n)
    {
        s_retained.Capacity = n;
        for (int i = 0; i < n; i++)
        {
            s_retained.Add(new Retained(i));
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Idle(double seconds)
    {
        var sw = Stopwatch.StartNew();
        while (true)
        {
            double left = seconds - sw.Elapsed.TotalSeconds;
            if (left <= 0)
            {
                return;
            }
            Thread.Sleep(TimeSpan.FromSeconds(Math.Min(left, 0.1)));
        }
    }
}
