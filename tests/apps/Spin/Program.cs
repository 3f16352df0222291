// Spin [SECONDS]
//
// Long-running target for attach/kill tests. The main thread loops calling
// SpinOuter() -> SpinInner() (CPU work) forever, or for SECONDS of wall time if given,
// printing "tick <n>" every 200 ms. A background thread named "spin-helper" sleeps
// in a managed loop (Thread.Sleep(50)). On SIGINT or SIGTERM it prints "bye" and exits 0.
// Reaching SECONDS exits 0 without printing "bye".
//
// stdout: "pid <N>", "tick <n>" (n = 1, 2, ...), and "bye" on a signal.
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private static volatile bool s_stop;
    public static double Sink;

    private static int Main(string[] args)
    {
        double seconds = double.PositiveInfinity;
        if (args.Length > 1
            || (args.Length == 1
                && (!double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds)
                    || double.IsNaN(seconds) || seconds < 0)))
        {
            Console.Error.WriteLine("usage: Spin [SECONDS]");
            return 2;
        }

        // A parent may have started us with SIGINT ignored (bash does this for `cmd &` in a
        // non-interactive script); the runtime then never installs its SIGINT handler.
        // Restore the default disposition first so the registration below takes effect.
        UnignoreSigint();

        using PosixSignalRegistration sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal);
        using PosixSignalRegistration sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal);

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        var helper = new Thread(HelperLoop) { Name = "spin-helper", IsBackground = true };
        helper.Start();

        bool signalled = Loop(seconds);
        if (signalled)
        {
            Say("bye");
        }
        return 0;
    }

    private const int SIGINT = 2;   // Linux numbering
    private static readonly nint SIG_DFL = 0;

    [DllImport("libc", EntryPoint = "signal")]
    private static extern nint SetSignalDisposition(int signum, nint handler);

    private static void UnignoreSigint()
    {
        // Only touch SIGINT when it is inherited as ignored (SigIgn bit 1 in /proc/self/status);
        // in that case nothing else has installed a handler yet, so resetting to SIG_DFL is safe.
        if (!OperatingSystem.IsLinux())
        {
            return;
        }
        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith("SigIgn:", StringComparison.Ordinal))
            {
                ulong mask = Convert.ToUInt64(line.Substring("SigIgn:".Length).Trim(), 16);
                if ((mask & (1UL << (SIGINT - 1))) != 0)
                {
                    SetSignalDisposition(SIGINT, SIG_DFL);
                }
                return;
            }
        }
    }

    private static void OnSignal(PosixSignalContext context)
    {
        context.Cancel = true; // do not let the runtime terminate the process; Main exits 0
        s_stop = true;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    // Returns true when stopped by a signal, false when SECONDS elapsed.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool Loop(double seconds)
    {
        long start = Stopwatch.GetTimestamp();
        long tickEvery = Stopwatch.Frequency / 5; // 200 ms
        long nextTick = start + tickEvery;
        long deadline = double.IsInfinity(seconds) || seconds * Stopwatch.Frequency >= long.MaxValue / 2
            ? long.MaxValue
            : start + (long)(seconds * Stopwatch.Frequency);
        long tick = 0;
        while (!s_stop)
        {
            SpinOuter();
            long now = Stopwatch.GetTimestamp();
            if (now >= nextTick)
            {
                tick++;
                Say("tick " + tick.ToString(CultureInfo.InvariantCulture));
                nextTick += tickEvery;
                if (nextTick <= now)
                {
                    nextTick = now + tickEvery;
                }
            }
            if (now >= deadline)
            {
                return false;
            }
        }
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void SpinOuter()
    {
        for (int i = 0; i < 4; i++)
        {
            SpinInner();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void SpinInner()
    {
        uint x = 88172645u;
        double d = Sink;
        for (int i = 0; i < 2000; i++)
        {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            d = d * 0.999999 + (x & 0xFF) * 1e-3;
        }
        Sink = d + x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void HelperLoop()
    {
        while (true)
        {
            Thread.Sleep(50);
        }
    }
}
