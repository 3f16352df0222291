// GcInducer K
//
// K times: allocates some garbage, then GC.Collect(2, GCCollectionMode.Forced, blocking: true).
// Then prints the gen2 collection count, sleeps 300 ms and exits 0.
//
// stdout: "pid <N>", then "gc2 <GC.CollectionCount(2)>".
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    // Garbage is parked here so the allocations cannot be elided.
    private static object? s_slot;

    private static int Main(string[] args)
    {
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int k))
        {
            Console.Error.WriteLine("usage: GcInducer K");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        for (int i = 0; i < k; i++)
        {
            MakeGarbage(i);
            Collect();
        }
        s_slot = null;

        Say("gc2 " + GC.CollectionCount(2).ToString(CultureInfo.InvariantCulture));
        Thread.Sleep(300);
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void MakeGarbage(int seed)
    {
        // ~100 KB of small objects per round: far below any gen0 budget, so these
        // allocations do not trigger collections of their own.
        for (int j = 0; j < 1000; j++)
        {
            s_slot = new int[16 + ((seed + j) & 7)];
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Collect() => GC.Collect(2, GCCollectionMode.Forced, blocking: true);
}
