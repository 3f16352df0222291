// Async SECONDS [tasks|configure|valuetask|reference|deep|whenall|sync|sleep|yield|park [N]]
//
// An async program of a known logical shape for the logical stacks. RunAsync
// loops for SECONDS of wall time; each round awaits QuoteAsync, then
// CheckAsync; both await SumAsync(units), Quote with three times Check's
// units, and SumAsync spends them in Kernel, a CPU loop. SumAsync awaits
// Task.Yield() first, so Kernel always runs after a resume on a pool thread,
// where the physical stack is the pool's dispatch loop and SumAsync's
// MoveNext: the logical chains are
//   RunAsync -> QuoteAsync -> SumAsync -> Kernel   (3 parts of the CPU)
//   RunAsync -> CheckAsync -> SumAsync -> Kernel   (1 part)
// Modes:
//   tasks      Task and Task<T> awaits (the default)
//   configure  every await with ConfigureAwait(false)
//   valuetask  QuoteAsync, CheckAsync and SumAsync return ValueTask<double>
//   reference  QuoteTextAsync, CheckTextAsync and SumTextAsync return
//              Task<string>: a reference type, so their boxes' code is
//              shared by every such method
//   deep       QuoteAsync and CheckAsync reach SumAsync through eight
//              DeepAsync calls: a chain of eleven async methods
//   whenall    RunAsync awaits Task.WhenAll(QuoteAsync(), CheckAsync())
//   sleep      SumAsync sleeps its units (2 ms each) instead of spending
//              them in Kernel: a thread waiting inside a resumed method
//   sync       SumAsync does not yield: every await but RunAsync's own
//              Task.Yield completes synchronously, so the physical stack
//              is already the logical one below RunAsync
//   yield      each round awaits HopAsync, which awaits Task.Yield() and
//              returns: a resume on a pool thread per round, as many as
//              the machine makes (hundreds of thousands a second), for the
//              cost of the logical stacks
//   park       no rounds: Main parks async chains that never complete, says
//              "parked", spends SECONDS in Kernel on its own thread and
//              exits.  The pending chains, innermost method last:
//                ParkOuterAsync -> ParkMiddleAsync -> ParkInnerAsync  x100
//                  (each ParkInnerAsync awaits one never-completed TCS)
//                ParkBothAsync -> WhenAll -> ParkInnerAsync           x10
//                  (five ParkBothAsync, each awaiting two ParkInnerAsync)
//                ParkDelayAsync                                       x10
//                  (each awaiting Task.Delay(Timeout.Infinite))
//              325 methods suspended at an await, 120 of them innermost.
//              N (default 100) sets the first shape's count, for benchmarks.
// RunAsync is started by Main and not awaited by any async method (Main
// waits on an event), so it is the root of every chain.
//
// stdout: "pid <N>", then "done <rounds>" ("parked" first in park mode).
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    // Inner iterations of one unit (~0.5 ms on a modern core).
    private const int UnitIterations = 250_000;
    private const int CheckUnits = 1;
    private const int QuoteUnits = 3 * CheckUnits;
    private const int Depth = 8;

    private static string s_mode = "tasks";
    private static readonly ManualResetEventSlim s_done = new();
    private static long s_rounds;
    public static double Sink;

    private static int Main(string[] args)
    {
        string[] modes = { "tasks", "configure", "valuetask", "reference", "deep", "whenall", "sync", "sleep", "yield", "park" };
        int parkCount = 100;
        if (args.Length == 3 && args[1] == "park" && int.TryParse(args[2], out int n) && n >= 0)
        {
            parkCount = n;
            args = args[..2];
        }
        if (args.Length < 1 || args.Length > 2
            || !double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
            || double.IsNaN(seconds) || double.IsInfinity(seconds) || seconds < 0
            || (args.Length == 2 && Array.IndexOf(modes, args[1]) < 0))
        {
            Console.Error.WriteLine("usage: Async SECONDS [tasks|configure|valuetask|reference|deep|whenall|sync|sleep|yield|park [N]]");
            return 2;
        }
        if (args.Length == 2)
            s_mode = args[1];

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        if (s_mode == "park")
            return Park(seconds, parkCount);
        _ = RunAsync(seconds);
        s_done.Wait();
        Say("done " + s_rounds.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    // The parked chains' outermost tasks, kept reachable: the inner ones are
    // held by their callers' awaiters, every one by these.
    private static readonly List<Task> s_parked = new();
    private static readonly TaskCompletionSource<int> s_never = new();

    private static int Park(double seconds, int count)
    {
        for (int i = 0; i < count; i++)
            s_parked.Add(ParkOuterAsync(i));
        for (int i = 0; i < 5; i++)
            s_parked.Add(ParkBothAsync(i));
        for (int i = 0; i < 10; i++)
            s_parked.Add(ParkDelayAsync(i));
        Say("parked");
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        while (Stopwatch.GetTimestamp() < deadline)
            Sink += Kernel(1);
        Say("done " + s_parked.Count(t => !t.IsCompleted).ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static async Task HopAsync() => await Task.Yield();

    private static async Task<int> ParkOuterAsync(int i) => await ParkMiddleAsync(i) + 1;

    private static async Task<int> ParkMiddleAsync(int i) => await ParkInnerAsync(i) + 1;

    private static async Task<int> ParkInnerAsync(int i) => await s_never.Task + i;

    private static async Task<int> ParkBothAsync(int i)
    {
        int[] both = await Task.WhenAll(ParkInnerAsync(i), ParkInnerAsync(i + 1));
        return both[0] + both[1];
    }

    private static async Task ParkDelayAsync(int i)
    {
        await Task.Delay(Timeout.Infinite);
        Sink += i;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    private static async Task RunAsync(double seconds)
    {
        // Off Main's stack from here: every round runs on pool threads.
        await Task.Yield();
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        bool configure = s_mode == "configure";
        while (Stopwatch.GetTimestamp() < deadline)
        {
            switch (s_mode)
            {
                case "valuetask":
                    Sink += await QuoteValueAsync();
                    Sink += await CheckValueAsync();
                    break;
                case "reference":
                    Sink += (await QuoteTextAsync()).Length;
                    Sink += (await CheckTextAsync()).Length;
                    break;
                case "whenall":
                    double[] both = await Task.WhenAll(QuoteAsync(false), CheckAsync(false));
                    Sink += both[0] + both[1];
                    break;
                case "yield":
                    await HopAsync();
                    break;
                case "sync":
                    await Task.Yield();
                    Sink += await QuoteAsync(false);
                    Sink += await CheckAsync(false);
                    break;
                default:
                    Sink += await QuoteAsync(configure).ConfigureAwait(!configure);
                    Sink += await CheckAsync(configure).ConfigureAwait(!configure);
                    break;
            }
            s_rounds++;
        }
        s_done.Set();
    }

    private static async Task<double> QuoteAsync(bool configure)
    {
        if (s_mode == "deep")
            return await DeepAsync(Depth, QuoteUnits);
        return await SumAsync(QuoteUnits).ConfigureAwait(!configure);
    }

    private static async Task<double> CheckAsync(bool configure)
    {
        if (s_mode == "deep")
            return await DeepAsync(Depth, CheckUnits);
        return await SumAsync(CheckUnits).ConfigureAwait(!configure);
    }

    private static async Task<double> DeepAsync(int depth, int units)
    {
        if (depth > 1)
            return await DeepAsync(depth - 1, units) + 1;
        return await SumAsync(units);
    }

    private static async Task<double> SumAsync(int units)
    {
        if (s_mode != "sync")
            await Task.Yield();
        if (s_mode == "sleep")
        {
            Thread.Sleep(2 * units);
            return units;
        }
        return Kernel(units);
    }

    private static async ValueTask<double> QuoteValueAsync() => await SumValueAsync(QuoteUnits);

    private static async ValueTask<double> CheckValueAsync() => await SumValueAsync(CheckUnits);

    private static async ValueTask<double> SumValueAsync(int units)
    {
        await Task.Yield();
        return Kernel(units);
    }

    private static async Task<string> QuoteTextAsync() => await SumTextAsync(QuoteUnits);

    private static async Task<string> CheckTextAsync() => await SumTextAsync(CheckUnits);

    private static async Task<string> SumTextAsync(int units)
    {
        await Task.Yield();
        return Kernel(units).ToString(CultureInfo.InvariantCulture);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static double Kernel(int units)
    {
        double x = 0;
        for (int i = 0; i < units * UnitIterations; i++)
            x += Math.Sqrt(i + x);
        return x;
    }
}
