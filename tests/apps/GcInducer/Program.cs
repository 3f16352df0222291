// GcInducer K [P]
//
// Pins P objects of its own (pinned GC handles; none when P is not given), then K times:
// allocates some garbage, then GC.Collect(2, GCCollectionMode.Forced, blocking: true), so
// each of these collections finds the P objects pinned. Then frees the handles, prints the
// gen2 collection count, sleeps 300 ms and exits 0.
//
// stdout: "pid <N>", then "gc2 <GC.CollectionCount(2)>".
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Clrscope.TestApps;

internal static class Program
{
    // Garbage is parked here so the allocations cannot be elided.
    private static object? s_slot;

    private static int Main(string[] args)
    {
        int pinned = 0;
        if (args.Length is < 1 or > 2
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int k)
            || (args.Length == 2
                && !int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out pinned)))
        {
            Console.Error.WriteLine("usage: GcInducer K [P]");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        var pins = new GCHandle[pinned];
        for (int i = 0; i < pinned; i++)
        {
            pins[i] = GCHandle.Alloc(new byte[64], GCHandleType.Pinned);
        }
        for (int i = 0; i < k; i++)
        {
            MakeGarbage(i);
            Collect();
        }
        foreach (GCHandle pin in pins)
        {
            pin.Free();
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
