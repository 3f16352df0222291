// Waiter N
//
// N threads ("parker") each block in Clrscope.TestApps.Program.Park on one
// ManualResetEvent until Main sets it, once all N are blocked (their thread
// state says so) and 300 ms later: exactly N wait-handle waits of at least
// 300 ms in Park.  Then it starves the thread pool: 8 work items that each
// block 1.5 s on a pool of 2 workers at first, so the pool must add workers
// for starvation.  Then sleeps 300 ms and exits 0.
//
// stdout: "pid <N>", "parked <N>", then "starved".
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private static readonly ManualResetEvent s_gate = new(false);

    private static int Main(string[] args)
    {
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int n) || n < 1)
        {
            Console.Error.WriteLine("usage: Waiter N");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        var threads = new Thread[n];
        for (int i = 0; i < n; i++)
        {
            threads[i] = new Thread(Park) { Name = "parker" };
            threads[i].Start();
        }
        while (!threads.All(t => (t.ThreadState & ThreadState.WaitSleepJoin) != 0))
        {
            Thread.Sleep(1);
        }
        Thread.Sleep(300);
        s_gate.Set();
        foreach (Thread t in threads)
        {
            t.Join();
        }
        Say("parked " + n.ToString(CultureInfo.InvariantCulture));

        Starve();
        Say("starved");
        Thread.Sleep(300);
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Park() => s_gate.WaitOne();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Starve()
    {
        ThreadPool.SetMinThreads(2, 2);
        const int items = 8;
        using var done = new CountdownEvent(items);
        for (int i = 0; i < items; i++)
        {
            ThreadPool.QueueUserWorkItem(_ =>
            {
                Thread.Sleep(1500);
                done.Signal();
            });
        }
        done.Wait();
    }
}
