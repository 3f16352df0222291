// Graph N RING [SECONDS]
//
// A heap of known shape, for the heap graph's tests (every type below is the
// app's own, Clrscope.TestApps.*):
//   - a registry: the static field Registry.s_sessions, a List<Session> made
//     with room for 4*N (its array never reallocates), holding N Sessions, each
//     holding a byte[1000] payload of its own;
//   - a ring of RING slots (Ring.s_slots, a RingEntry[]) written 20 times over:
//     exactly RING RingEntry objects stay alive, the others are garbage;
//   - a cycle of three CycleNodes (A -> B -> C -> A) held by the static field
//     Cycle.s_head (A);
//   - one Shared object held by two Holders, each held by a static field of its
//     own (Holders.s_left, Holders.s_right): dominated by neither;
//   - one Orphan held only by the finalization queue: a Gate's finalizer blocks
//     the finalizer thread, then the Orphan (which has a finalizer) is dropped
//     and collected into the queue, where it waits.
//
// stdout: "pid <N>", then "ready <sessions>" once the heap is built.  Then each
// line "grow" on stdin adds N Sessions (answered "grown <sessions>"); stdin at
// its end releases the finalizer thread, and the program exits 0.  Between
// lines it allocates nothing of its own.  With SECONDS it reads no stdin: it
// sleeps that long, then exits the same way.
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

public sealed class Session
{
    public readonly int Id;
    public readonly byte[] Payload;

    public Session(int id)
    {
        Id = id;
        Payload = new byte[1000];
    }
}

public sealed class RingEntry
{
    public readonly int Seq;
    public readonly byte[] Data;

    public RingEntry(int seq)
    {
        Seq = seq;
        Data = new byte[64];
    }
}

public sealed class CycleNode
{
    public CycleNode? Next;
}

public sealed class Shared
{
    public long Value;
}

public sealed class Holder
{
    public Shared? Item;
}

public sealed class Gate
{
    public static readonly ManualResetEventSlim Entered = new(false);
    public static readonly ManualResetEventSlim Release = new(false);

    ~Gate()
    {
        Entered.Set();
        Release.Wait();
    }
}

public sealed class Orphan
{
    ~Orphan()
    {
    }
}

internal static class Registry
{
    public static List<Session> s_sessions = new();
}

internal static class Ring
{
    public static RingEntry?[] s_slots = Array.Empty<RingEntry?>();
}

internal static class Cycle
{
    public static CycleNode? s_head;
}

internal static class Holders
{
    public static Holder? s_left;
    public static Holder? s_right;
}

internal static class Program
{
    private static int Main(string[] args)
    {
        int seconds = -1;
        if (args.Length < 2 || args.Length > 3
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int n)
            || !int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out int ring)
            || n < 1 || ring < 1
            || (args.Length == 3 && !int.TryParse(args[2], NumberStyles.None, CultureInfo.InvariantCulture, out seconds)))
        {
            Console.Error.WriteLine("usage: Graph N RING [SECONDS]");
            return 2;
        }
        Console.Out.WriteLine("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();

        Registry.s_sessions = new List<Session>(4 * n);
        AddSessions(n);
        FillRing(ring);
        MakeCycle();
        MakeShared();
        QueueOrphan();

        Console.Out.WriteLine("ready " + Registry.s_sessions.Count.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
        if (seconds >= 0)
        {
            Thread.Sleep(TimeSpan.FromSeconds(seconds));
            Gate.Release.Set();
            return 0;
        }
        string? line;
        while ((line = Console.In.ReadLine()) != null)
        {
            if (line == "grow")
            {
                AddSessions(n);
                Console.Out.WriteLine("grown " + Registry.s_sessions.Count.ToString(CultureInfo.InvariantCulture));
                Console.Out.Flush();
            }
        }
        Gate.Release.Set();
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AddSessions(int n)
    {
        int first = Registry.s_sessions.Count;
        for (int i = 0; i < n; i++)
        {
            Registry.s_sessions.Add(new Session(first + i));
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void FillRing(int ring)
    {
        Ring.s_slots = new RingEntry?[ring];
        for (int i = 0; i < 20 * ring; i++)
        {
            Ring.s_slots[i % ring] = new RingEntry(i);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void MakeCycle()
    {
        var a = new CycleNode();
        var b = new CycleNode();
        var c = new CycleNode();
        a.Next = b;
        b.Next = c;
        c.Next = a;
        Cycle.s_head = a;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void MakeShared()
    {
        var shared = new Shared { Value = 42 };
        Holders.s_left = new Holder { Item = shared };
        Holders.s_right = new Holder { Item = shared };
    }

    // The finalizer thread stops in a Gate's finalizer; an Orphan dropped after
    // that waits in the finalization queue, which alone holds it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void QueueOrphan()
    {
        DropGate();
        GC.Collect();
        Gate.Entered.Wait();
        DropOrphan();
        GC.Collect();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void DropGate()
    {
        _ = new Gate();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void DropOrphan()
    {
        _ = new Orphan();
    }
}
