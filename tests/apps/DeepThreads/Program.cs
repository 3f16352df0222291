// DeepThreads THREADS DEPTH SECONDS [events] [busy=N]
//
// Benchmark target for the runtime's suspension per sample and for long
// sessions: THREADS threads ("deep-<i>"), each recursing DEPTH frames deep
// through Deep.Descend (not inlined, and not in tail position, so every
// level stays a frame) and spinning at the bottom in Deep.Spin / Deep.Work
// until SECONDS of wall time have passed after "ready".
//
// busy=N: only N of the THREADS threads spin; the others wait at their
// depth (blocked in the runtime, so a suspension need not wait for them,
// but their stacks are still walked).  Default: all of them spin.
//
// events: the main thread also keeps the runtime's events coming while the
// others spin: it allocates short-lived arrays (gen0 GCs) and throws and
// catches an exception every 100 ms, always from the same few methods, so
// a long session sees steady events with a constant set of functions,
// threads and stacks.
//
// stdout: "pid <N>", "ready" once every thread is at its depth, then
// "done <spins>" (work units done by the spinning threads) at the end.
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private const string Usage = "usage: DeepThreads THREADS(1-1024) DEPTH(1-10000) SECONDS [events] [busy=N]";

    private static int Main(string[] args)
    {
        if (args.Length < 3
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int threads)
            || threads is < 1 or > 1024
            || !int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out int depth)
            || depth is < 1 or > 10000
            || !double.TryParse(args[2], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
            || !(seconds > 0))
        {
            Console.Error.WriteLine(Usage);
            return 2;
        }
        bool events = false;
        int busy = threads;
        foreach (string option in args.Skip(3))
        {
            if (option == "events")
            {
                events = true;
            }
            else if (!option.StartsWith("busy=", StringComparison.Ordinal)
                     || !int.TryParse(option.AsSpan(5), NumberStyles.None, CultureInfo.InvariantCulture, out busy)
                     || busy > threads)
            {
                Console.Error.WriteLine(Usage + " (busy: at most THREADS)");
                return 2;
            }
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Deep.Init(threads);
        var workers = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            // 16 MiB of stack (reserved, not committed): room for DEPTH tier-0 frames
            bool spins = i < busy;
            workers[i] = new Thread(() => Deep.Descend(depth, spins), 16 << 20) { Name = "deep-" + i, IsBackground = true };
            workers[i].Start();
        }
        Deep.AtBottom.Wait();
        Say("ready");

        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        if (events)
        {
            Churn.Until(deadline);
        }
        else
        {
            Thread.Sleep(TimeSpan.FromSeconds(seconds));
        }
        Deep.Stop = true;
        Deep.Stopped.Set();
        foreach (Thread t in workers)
        {
            t.Join();
        }
        Say("done " + Interlocked.Read(ref Deep.Spins).ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}

internal static class Deep
{
    public static volatile bool Stop;
    public static readonly ManualResetEventSlim Stopped = new(false, 0); // no spinning before blocking
    public static long Spins;
    public static CountdownEvent AtBottom = null!;
    [ThreadStatic] private static double t_sink;

    public static void Init(int threads) => AtBottom = new CountdownEvent(threads);

    // Returns a value used after the call, so the JIT cannot turn it into a
    // tail call and fold the levels into one frame.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Descend(int depth, bool spins)
    {
        if (depth <= 1)
        {
            AtBottom.Signal();
            return spins ? Spin() : Wait();
        }
        long r = Descend(depth - 1, spins);
        return r + depth;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Wait()
    {
        Stopped.Wait();
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Spin()
    {
        long n = 0;
        while (!Stop)
        {
            Work();
            n++;
        }
        Interlocked.Add(ref Spins, n);
        return n;
    }

    // A few microseconds of arithmetic: short enough that a suspension
    // request is answered soon after it comes (at the return, or in the loop).
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Work()
    {
        uint x = 2463534242u;
        double d = t_sink;
        for (int i = 0; i < 500; i++)
        {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            d = d * 0.999999 + (x & 0xFF) * 1e-3;
        }
        t_sink = d + x;
    }
}

internal static class Churn
{
    public static object? Keep;

    // Every 10 ms about 1 MiB of garbage; every 100 ms an exception.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Until(long deadline)
    {
        int round = 0;
        while (Stopwatch.GetTimestamp() < deadline)
        {
            Allocate();
            if (++round % 10 == 0)
            {
                ThrowAndCatch();
            }
            Thread.Sleep(10);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Allocate()
    {
        for (int i = 0; i < 64; i++)
        {
            Keep = new byte[16 << 10];
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowAndCatch()
    {
        try
        {
            Fail();
        }
        catch (InvalidOperationException e)
        {
            Keep = e;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Fail() => throw new InvalidOperationException("churn");
}
