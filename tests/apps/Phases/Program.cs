// Phases THREADS DEPTH SECONDS [ROUNDS]
//
// THREADS threads ("phase-<i>") each recurse DEPTH frames deep through
// Phases.Descend and then, at the bottom, go ROUNDS times (default 1)
// through six phases of SECONDS each, paced by the main thread: waiting in
// WaitA, waiting in WaitB, spinning in Spin, waiting in WaitD, reading a
// pipe in ReadE, reading another in ReadF.  A sampler that reuses the stack
// of a thread that has not run since its last walk must still see each
// wait site for its own SECONDS: the phases get equal shares of the
// samples.  From ReadE's read to ReadF's (direct system calls, compiled in
// the first round) a thread runs for a few microseconds; WaitD is first
// called by all threads at once, and all but one wait for its compilation.
//
// stdout: "pid <N>", "ready" once every thread is at its depth, "round R
// phase P" as each phase after the first starts, "done" at the end.
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private static int Main(string[] args)
    {
        int rounds = 1;
        if (args.Length is < 3 or > 4
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int threads)
            || threads is < 1 or > 64
            || !int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out int depth)
            || depth is < 1 or > 1000
            || !double.TryParse(args[2], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
            || !(seconds > 0)
            || (args.Length == 4 && (!int.TryParse(args[3], NumberStyles.None, CultureInfo.InvariantCulture, out rounds)
                                     || rounds is < 1 or > 100)))
        {
            Console.Error.WriteLine("usage: Phases THREADS(1-64) DEPTH(1-1000) SECONDS [ROUNDS(1-100)]");
            return 2;
        }
        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        if (!Phases.Start(threads, rounds))
        {
            Console.Error.WriteLine("Phases: pipe() failed");
            return 1;
        }
        var workers = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            workers[i] = new Thread(() => Phases.Descend(depth), 4 << 20) { Name = "phase-" + i, IsBackground = true };
            workers[i].Start();
        }
        Phases.AtBottom.Wait();
        Say("ready");
        var pause = TimeSpan.FromSeconds(seconds);
        for (int phase = 0; phase < Phases.Count * rounds; phase++)
        {
            Thread.Sleep(pause);
            if (phase + 1 < Phases.Count * rounds)
            {
                Say("round " + (phase + 1) / Phases.Count + " phase " + "ABCDEF"[(phase + 1) % Phases.Count]);
            }
            if (!Phases.Open(phase, threads))
            {
                Console.Error.WriteLine("Phases: a write to a pipe failed");
                return 1;
            }
        }
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
    public const int Count = 6;
    public static CountdownEvent AtBottom = null!;
    // phases A, B, C and D of each round end at a gate, E and F when a byte
    // per thread arrives in their pipe
    private static ManualResetEventSlim[] _gates = null!;
    private static int[] _pipes = null!;
    private static int _rounds;

    public static bool Start(int threads, int rounds)
    {
        AtBottom = new CountdownEvent(threads);
        _rounds = rounds;
        _gates = new ManualResetEventSlim[Count * rounds];
        _pipes = new int[2 * Count * rounds];
        for (int i = 0; i < _gates.Length; i++)
        {
            // spinCount 0: the waits block at once instead of spinning first
            _gates[i] = new ManualResetEventSlim(false, 0);
            var fds = new int[2];
            if (pipe(fds) != 0)
            {
                return false;
            }
            _pipes[2 * i] = fds[0];
            _pipes[2 * i + 1] = fds[1];
        }
        return true;
    }

    public static bool Open(int phase, int threads)
    {
        _gates[phase].Set();
        return write(_pipes[2 * phase + 1], new byte[threads], threads) == threads;
    }

    // Returns a value used after the call, so the levels stay frames.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Descend(int depth)
    {
        if (depth <= 1)
        {
            AtBottom.Signal();
            long sum = 0;
            for (int r = 0; r < _rounds; r++)
            {
                int p = Count * r;
                sum += WaitA(_gates[p]) + WaitB(_gates[p + 1]) + Spin(_gates[p + 2]) + WaitD(_gates[p + 3]);
                sum += ReadE(_pipes[2 * (p + 4)]) + ReadF(_pipes[2 * (p + 5)]);
            }
            return sum;
        }
        long rest = Descend(depth - 1);
        return rest + depth;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long WaitA(ManualResetEventSlim gate)
    {
        gate.Wait();
        return 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long WaitB(ManualResetEventSlim gate)
    {
        gate.Wait();
        return 2;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Spin(ManualResetEventSlim gate)
    {
        long n = 0;
        while (!gate.IsSet)
        {
            n++;
        }
        return n;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long WaitD(ManualResetEventSlim gate)
    {
        gate.Wait();
        return 4;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long ReadE(int fd)
    {
        return read(fd, new byte[1], 1);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long ReadF(int fd)
    {
        return read(fd, new byte[1], 1);
    }

    [DllImport("libc", EntryPoint = "pipe")]
    private static extern int pipe(int[] fds);

    [DllImport("libc", EntryPoint = "read")]
    private static extern nint read(int fd, byte[] buf, nint count);

    [DllImport("libc", EntryPoint = "write")]
    private static extern nint write(int fd, byte[] buf, nint count);
}
