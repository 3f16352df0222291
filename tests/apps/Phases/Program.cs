// Phases THREADS DEPTH SECONDS
//
// THREADS threads ("phase-<i>") each recurse DEPTH frames deep through
// Phases.Descend and then, at the bottom, go through four phases of SECONDS
// each, paced by the main thread: waiting in WaitA, waiting in WaitB,
// spinning in Spin, waiting in WaitD.  A sampler that reuses the stack of a
// thread that has not run since its last walk must still see each wait
// site for its own SECONDS: the four phases get equal shares of the samples.
//
// stdout: "pid <N>", "ready" once every thread is at its depth, "phase B",
// "phase C", "phase D" as the phases start, "done" at the end.
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length != 3
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int threads)
            || threads is < 1 or > 64
            || !int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out int depth)
            || depth is < 1 or > 1000
            || !double.TryParse(args[2], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
            || !(seconds > 0))
        {
            Console.Error.WriteLine("usage: Phases THREADS(1-64) DEPTH(1-1000) SECONDS");
            return 2;
        }
        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Phases.AtBottom = new CountdownEvent(threads);
        var workers = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            workers[i] = new Thread(() => Phases.Descend(depth), 4 << 20) { Name = "phase-" + i, IsBackground = true };
            workers[i].Start();
        }
        Phases.AtBottom.Wait();
        Say("ready");
        var pause = TimeSpan.FromSeconds(seconds);
        Thread.Sleep(pause);
        Say("phase B");
        Phases.EndA.Set();
        Thread.Sleep(pause);
        Say("phase C");
        Phases.EndB.Set();
        Thread.Sleep(pause);
        Say("phase D");
        Phases.EndC = true;
        Thread.Sleep(pause);
        Phases.EndD.Set();
        foreach (Thread t in workers)
        {
            t.Join();
        }
        Say("done");
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}

internal static class Phases
{
    public static CountdownEvent AtBottom = null!;
    // spinCount 0: the waits block at once instead of spinning first
    public static readonly ManualResetEventSlim EndA = new(false, 0), EndB = new(false, 0), EndD = new(false, 0);
    public static volatile bool EndC;

    // Returns a value used after the call, so the levels stay frames.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Descend(int depth)
    {
        if (depth <= 1)
        {
            AtBottom.Signal();
            return WaitA() + WaitB() + Spin() + WaitD();
        }
        long r = Descend(depth - 1);
        return r + depth;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long WaitA()
    {
        EndA.Wait();
        return 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long WaitB()
    {
        EndB.Wait();
        return 2;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Spin()
    {
        long n = 0;
        while (!EndC)
        {
            n++;
        }
        return n;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long WaitD()
    {
        EndD.Wait();
        return 4;
    }
}
