// HotLines [SECONDS]
//
// One hot loop for line-level tests, built with its portable PDB embedded
// in the assembly. Spin spends its time in the loop body marked HOT below
// (the lines between "loop begins" and "loop ends"); Main calls it for
// SECONDS of wall time (default 1) and prints "done <rounds>".
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Clrscope.TestApps;

internal static class Program
{
    public static double Sink;

    private static int Main(string[] args)
    {
        double seconds = 1;
        if (args.Length > 1
            || (args.Length == 1 && !double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds)))
        {
            Console.Error.WriteLine("usage: HotLines [SECONDS]");
            return 2;
        }
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long rounds = 0;
        do
        {
            Spin(100000);
            rounds++;
        }
        while (Stopwatch.GetTimestamp() < deadline);
        Console.Out.WriteLine("done " + rounds.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spin(int iterations)
    {
        double d = Sink;
        // loop begins
        for (int i = 0; i < iterations; i++)
        {
            d = d * 0.999999 + i * 1e-9; // HOT
        }
        // loop ends
        Sink = d;
    }
}
