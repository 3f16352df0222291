// CpuRatio SECONDS [clocked|swapped]
//
// Burns CPU on the main thread for SECONDS of wall time. Each round calls
// Worker.Heavy() then Worker.Light(); both call the same callee Worker.Burn(units),
// Heavy with 3x the units of Light, so inclusive time Heavy:Light is 3:1 and all
// self time is in Burn. A round is ~0.2 ms, so the ratio holds at any sampling instant.
// The clock is read every 32 rounds, so the run may overshoot SECONDS by ~7 ms and
// <rounds> is a multiple of 32.
//
// With "clocked", the rounds follow the wall clock instead: every 2.5 ms slot
// (400 per second, aligned on the monotonic clock) Heavy spins for its first
// three quarters and Light for the last quarter, both in Worker.BurnUntil. A
// sampler ticking at exactly 400 Hz would see the same phase of every slot.
//
// With "swapped", Heavy does Light's units and Light Heavy's: 1:3.
//
// stdout: "pid <N>", then "done <rounds>".
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    private static int Main(string[] args)
    {
        bool clocked = args.Length == 2 && args[1] == "clocked";
        bool swapped = args.Length == 2 && args[1] == "swapped";
        if ((args.Length != 1 && !clocked && !swapped)
            || !double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
            || double.IsNaN(seconds) || double.IsInfinity(seconds) || seconds < 0)
        {
            Console.Error.WriteLine("usage: CpuRatio SECONDS [clocked|swapped]");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        if (swapped)
            (Worker.HeavyUnits, Worker.LightUnits) = (Worker.LightUnits, Worker.HeavyUnits);
        long rounds = clocked ? Worker.RunClocked(seconds) : Worker.Run(seconds);

        Say("done " + rounds.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    internal static class Worker
    {
        // Units per call: Heavy does 3x Light.
        public static int HeavyUnits = 30;
        public static int LightUnits = 10;

        // Rounds between clock reads (~6.5 ms at ~0.2 ms per round).
        private const int RoundsPerClockRead = 32;

        // Inner iterations of one unit (~5 microseconds on a modern core).
        private const int UnitIterations = 2500;

        // Results are accumulated here so the JIT cannot drop the work.
        public static double Sink;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Run(double seconds)
        {
            long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
            long rounds = 0;
            do
            {
                // The clock read is a GC poll site. Reading it after every round let
                // EventPipe's sample profiler (which stops threads at safe points) park ~8%
                // of samples there and measure Heavy:Light as ~2.7:1; every 32 rounds it
                // measures ~3.0:1.
                for (int k = 0; k < RoundsPerClockRead; k++)
                {
                    Heavy();
                    Light();
                }
                rounds += RoundsPerClockRead;
            }
            while (Stopwatch.GetTimestamp() < deadline);
            return rounds;
        }

        // One slot of the clocked mode: 2.5 ms.
        private static readonly long SlotTicks = Stopwatch.Frequency / 400;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long RunClocked(double seconds)
        {
            long start = Stopwatch.GetTimestamp();
            long slot = start / SlotTicks + 1;
            long last = slot + (long)(seconds * 400);
            for (; slot < last; slot++)
            {
                HeavyUntil(slot * SlotTicks + SlotTicks * 3 / 4);
                LightUntil((slot + 1) * SlotTicks);
            }
            return last - (start / SlotTicks + 1);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void HeavyUntil(long deadline) => BurnUntil(deadline);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void LightUntil(long deadline) => BurnUntil(deadline);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void BurnUntil(long deadline)
        {
            uint x = 2463534242u;
            while (Stopwatch.GetTimestamp() < deadline)
            {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
            }
            Sink += x;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Heavy() => Burn(HeavyUnits);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Light() => Burn(LightUnits);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Burn(int units)
        {
            uint x = 2463534242u;
            double d = Sink;
            for (int u = 0; u < units; u++)
            {
                for (int i = 0; i < UnitIterations; i++)
                {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    d = d * 0.999999 + (x & 0xFF) * 1e-3;
                }
            }
            Sink = d + x;
        }
    }
}
