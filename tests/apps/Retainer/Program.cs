// Retainer N SECONDS
//
// Creates exactly N Clrscope.TestApps.Retained objects (each with an int[4] payload),
// keeps them in a static List, then idles in managed code (Thread.Sleep loop) for
// SECONDS and exits 0.
//
// Before it says "retained", it asks for a background (non-blocking) gen-2 GC and
// reports whether one ran: a profiler that turned background GC off makes it blocking.
//
// stdout: "pid <N>", "background_gc on|off", then "retained <N>".
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
        Say("background_gc " + (BackgroundGcRuns() ? "on" : "off"));
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

    // GCKind.Background tells the last background GC: index 0 while none has run.
    private static bool BackgroundGcRuns()
    {
        // the retained objects into gen 2 first: the GC makes a gen-2 collection
        // of a (nearly) empty gen 2 blocking whatever was asked
        GC.Collect();
        GC.Collect();
        GC.Collect(2, GCCollectionMode.Forced, blocking: false);
        var sw = Stopwatch.StartNew();
        while (sw.Elapsed.TotalSeconds < 2)
        {
            if (GC.GetGCMemoryInfo(GCKind.Background).Index != 0)
            {
                return true;
            }
            Thread.Sleep(10);
        }
        return false;
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
