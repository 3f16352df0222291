// BigHeap MIB
//
// Fills the heap with about MIB mebibytes of live objects (Clrscope.TestApps.Node,
// 32 bytes each with an 88-byte int[16] payload), prints "pid <N>", "objects <count>"
// and "ready", then reads commands from stdin, one per line:
//   gc    - a blocking full collection; prints "gc_ms <ms>" (its wall time)
//   quit  - exits 0 (so does the end of stdin)
using System.Diagnostics;
using System.Globalization;

namespace Clrscope.TestApps;

public sealed class Node
{
    public readonly int[] Payload = new int[16];
    public Node? Next;
}

internal static class Program
{
    private static Node? s_head;

    private static int Main(string[] args)
    {
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int mib) || mib < 1)
        {
            Console.Error.WriteLine("usage: BigHeap MIB");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        long count = (long)mib * 1024 * 1024 / (32 + 88);
        for (long i = 0; i < count; i++)
        {
            s_head = new Node { Next = s_head };
        }
        Say("objects " + count.ToString(CultureInfo.InvariantCulture));
        Say("ready");

        string? line;
        while ((line = Console.In.ReadLine()) != null && line != "quit")
        {
            if (line == "gc")
            {
                var sw = Stopwatch.StartNew();
                GC.Collect(2, GCCollectionMode.Forced, blocking: true);
                Say("gc_ms " + sw.Elapsed.TotalMilliseconds.ToString("F1", CultureInfo.InvariantCulture));
            }
        }
        GC.KeepAlive(s_head);
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}
