// Bursts SECONDS [BURST_US [GAP_US]]
//
// A thread that works in short bursts and parks between them at the same
// place, as a thread pool's worker does: the thread "burster" waits in
// Worker.Park (an AutoResetEvent) and, each time Main sets the event, runs
// Worker.Burst for BURST_US microseconds (default 150), then parks again.
// Main paces it, spinning GAP_US (default 500) of wall time in Program.Pace
// between sets, for SECONDS.  With 150 us bursts the burster is parked about 70 % of the
// time, in one place with one stack, and has run between most pairs of
// ticks of a sampler at 1 kHz.
//
// stdout: "pid <N>", then "bursts <count>" and "burst_ms <in Burst> of
// <the burster's life>" at the end: the wall time the burster spent in
// Burst, running or not (on a busy machine it is preempted there, and its
// time on a CPU falls short of it), which is what wall samples measure.
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private static int Main(string[] args)
    {
        int burstUs = 150, gapUs = 500;
        if (args.Length < 1 || args.Length > 3
            || !double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
            || double.IsNaN(seconds) || seconds < 0
            || (args.Length == 2 && (!int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out burstUs)
                                     || burstUs > 400))
            || (args.Length == 3 && (!int.TryParse(args[2], NumberStyles.None, CultureInfo.InvariantCulture, out gapUs)
                                     || gapUs < 100 || gapUs > 100_000)))
        {
            Console.Error.WriteLine("usage: Bursts SECONDS [BURST_US (at most 400) [GAP_US (100 to 100000)]]");
            return 2;
        }
        Worker.BurstUs = burstUs;
        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        var burster = new Thread(Worker.Loop) { Name = "burster", IsBackground = true };
        burster.Start();
        long end = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long count = 0;
        while (Stopwatch.GetTimestamp() < end)
        {
            Pace(Stopwatch.GetTimestamp() + Stopwatch.Frequency * gapUs / 1_000_000);
            Worker.Go.Set();
            count++;
        }
        Worker.Stop = true;
        Worker.Go.Set();
        burster.Join();
        Say("bursts " + count.ToString(CultureInfo.InvariantCulture));
        double ms = 1000.0 / Stopwatch.Frequency;
        Say("burst_ms " + (Worker.BurstTicks * ms).ToString("F1", CultureInfo.InvariantCulture) + " of "
            + (Worker.LifeTicks * ms).ToString("F1", CultureInfo.InvariantCulture));
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Pace(long until)
    {
        while (Stopwatch.GetTimestamp() < until)
        {
        }
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}

internal static class Worker
{
    public static readonly AutoResetEvent Go = new(false);
    public static volatile bool Stop;
    public static int BurstUs;
    public static double Sink;
    public static long BurstTicks, LifeTicks;

    public static void Loop()
    {
        long born = Stopwatch.GetTimestamp();
        while (!Stop)
        {
            Park();
            long start = Stopwatch.GetTimestamp();
            Burst();
            BurstTicks += Stopwatch.GetTimestamp() - start;
        }
        LifeTicks = Stopwatch.GetTimestamp() - born;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Park() => Go.WaitOne();

    // BurstUs of wall time.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Burst()
    {
        long until = Stopwatch.GetTimestamp() + Stopwatch.Frequency * BurstUs / 1_000_000;
        double x = Sink;
        while (Stopwatch.GetTimestamp() < until)
        {
            for (int i = 0; i < 50; i++)
            {
                x = x * 1.0000001 + 1.0;
            }
        }
        Sink = x;
    }
}
