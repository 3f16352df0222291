// Contender K [--paced]
//
// K rounds; in each, Main holds one lock while 4 threads try to take it in
// Contender.Program.TakeLock, and lets go only once all 4 are blocked waiting
// (their thread state says so), then 20 ms later. So every round has exactly
// 4 contended lock acquisitions, each waiting at least 20 ms; a thread then
// holds the lock 2 ms, so the others wait longer still.
//
// --paced: before each round, says "round <i>" and reads a line from stdin
// (a test changes the dials between rounds).
//
// stdout: "pid <N>", then "contended <4K>".
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private const int Threads = 4;
    private static readonly object s_gate = new();
    private static int s_entered;

    private static int Main(string[] args)
    {
        if (args.Length is < 1 or > 2
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int k)
            || (args.Length == 2 && args[1] != "--paced"))
        {
            Console.Error.WriteLine("usage: Contender K [--paced]");
            return 2;
        }
        bool paced = args.Length == 2;

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        for (int round = 0; round < k; round++)
        {
            if (paced)
            {
                Say("round " + round.ToString(CultureInfo.InvariantCulture));
                if (Console.In.ReadLine() is null)
                {
                    return 1;
                }
            }
            var threads = new Thread[Threads];
            Monitor.Enter(s_gate);
            for (int i = 0; i < Threads; i++)
            {
                threads[i] = new Thread(TakeLock) { Name = "contender" };
                threads[i].Start();
            }
            WaitUntilBlocked(threads);
            Thread.Sleep(20);
            Monitor.Exit(s_gate);
            foreach (Thread t in threads)
            {
                t.Join();
            }
        }

        Say("contended " + s_entered.ToString(CultureInfo.InvariantCulture));
        Thread.Sleep(300);
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    private static void WaitUntilBlocked(Thread[] threads)
    {
        while (!threads.All(t => (t.ThreadState & ThreadState.WaitSleepJoin) != 0))
        {
            Thread.Sleep(1);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void TakeLock()
    {
        lock (s_gate)
        {
            s_entered++;
            Thread.Sleep(2);
        }
    }
}
