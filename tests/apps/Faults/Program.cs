// Faults MODE SECONDS LIBRARY
//
// Code a profiler's signal handler must survive, from a small native library
// (tests/tools/faultlib.c, built as libclrscopefaults.so):
//   badfp  the main thread spins in native code whose rbp points into
//          unmapped memory, for SECONDS
//   steal  the main thread spins in managed code for one second, then takes
//          over every real-time signal handled with SA_SIGINFO (as a program
//          installing handlers late would), spins SECONDS more, and counts
//          the signals that reached its handler after the first 100 ms
//   masked the main thread spins in native code for SECONDS with the
//          real-time signals blocked (the runtime's own aside), then in
//          managed code for one second
//
// stdout: "tid <OS thread id>", then per mode "done <rounds>" or
// "stolen <handlers>", "foreign <signals>", "done <rounds>", or for masked
// "queued <most signals queued for the user at once>", "done <rounds>".
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Clrscope.TestApps;

internal static unsafe class Program
{
    public static double Sink;

    private static int Main(string[] args)
    {
        if (args.Length != 3
            || !double.TryParse(args[1], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds))
        {
            Console.Error.WriteLine("usage: Faults badfp|steal|masked SECONDS LIBRARY");
            return 2;
        }
        IntPtr lib = NativeLibrary.Load(args[2]);
        Say("tid " + gettid().ToString(CultureInfo.InvariantCulture));
        switch (args[0])
        {
            case "badfp":
                var spin = (delegate* unmanaged<double, long>)NativeLibrary.GetExport(lib, "faults_spin_bad_frame_pointer");
                Say("done " + spin(seconds).ToString(CultureInfo.InvariantCulture));
                return 0;
            case "steal":
                var steal = (delegate* unmanaged<int>)NativeLibrary.GetExport(lib, "faults_steal_rt_signals");
                var foreign = (delegate* unmanaged<long>)NativeLibrary.GetExport(lib, "faults_foreign_signals");
                long rounds = Burn(1.0);
                Say("stolen " + steal().ToString(CultureInfo.InvariantCulture));
                rounds += Burn(0.1);
                long before = foreign();
                rounds += Burn(seconds);
                Say("foreign " + (foreign() - before).ToString(CultureInfo.InvariantCulture));
                Say("done " + rounds.ToString(CultureInfo.InvariantCulture));
                return 0;
            case "masked":
                var masked = (delegate* unmanaged<double, long>)NativeLibrary.GetExport(lib, "faults_spin_masked");
                Say("queued " + masked(seconds).ToString(CultureInfo.InvariantCulture));
                Say("done " + Burn(1.0).ToString(CultureInfo.InvariantCulture));
                return 0;
            default:
                Console.Error.WriteLine("unknown mode " + args[0]);
                return 2;
        }
    }

    [DllImport("libc", EntryPoint = "gettid")]
    private static extern int gettid();

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Burn(double seconds)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long rounds = 0;
        uint x = 2463534242u;
        do
        {
            for (int i = 0; i < 10000; i++)
            {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
            }
            rounds++;
        }
        while (Stopwatch.GetTimestamp() < deadline);
        Sink = x;
        return rounds;
    }
}
