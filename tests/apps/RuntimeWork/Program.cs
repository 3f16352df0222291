// RuntimeWork jit COUNT
// RuntimeWork gc SECONDS
//
// Busy in the runtime itself rather than in managed code, on the main
// thread.  "jit": compiles COUNT instantiations of Compiled.Work<T> over
// distinct value types (Pair<A, Pair<B, C>> of ten small structs: each needs
// its own code, and its types loaded), each first called directly from
// Driver<T>.Run, which reflection calls.  Work is large and asks for full
// optimisation, so compiling it costs far more than running it.  "gc":
// keeps about two million objects reachable and collects them with
// GC.Collect() until SECONDS have passed.
//
// stdout: "pid <N>", then "done <count>" (instantiations, collections).
using System.Globalization;
using System.Runtime.CompilerServices;

#pragma warning disable CS0649 // the value types exist for their layout: nothing reads their fields

namespace Clrscope.TestApps;

internal struct S0 { public int V; }
internal struct S1 { public int V; }
internal struct S2 { public int V; }
internal struct S3 { public int V; }
internal struct S4 { public int V; }
internal struct S5 { public int V; }
internal struct S6 { public int V; }
internal struct S7 { public int V; }
internal struct S8 { public int V; }
internal struct S9 { public int V; }

internal struct Pair<A, B>
{
    public A First;
    public B Second;
}

internal sealed class Node
{
    public Node? Next;
    public long Value;
}

internal static class Driver<T> where T : struct
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static uint Run() => Compiled.Work<T>(3);
}

internal static class Compiled
{
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static uint Work<T>(int seed) where T : struct
    {
        var values = new T[16];
        uint acc = (uint)seed;
        acc = acc * 31 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[0].GetHashCode();
        if ((acc & 1u) != 0) acc ^= acc >> 1; else acc += 3u;
        acc = acc * 32 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[1].GetHashCode();
        if ((acc & 2u) != 0) acc ^= acc >> 2; else acc += 10u;
        acc = acc * 33 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[2].GetHashCode();
        if ((acc & 4u) != 0) acc ^= acc >> 3; else acc += 17u;
        acc = acc * 34 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[3].GetHashCode();
        if ((acc & 8u) != 0) acc ^= acc >> 4; else acc += 24u;
        acc = acc * 35 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[4].GetHashCode();
        if ((acc & 16u) != 0) acc ^= acc >> 5; else acc += 31u;
        acc = acc * 36 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[5].GetHashCode();
        if ((acc & 32u) != 0) acc ^= acc >> 6; else acc += 38u;
        acc = acc * 37 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[6].GetHashCode();
        if ((acc & 64u) != 0) acc ^= acc >> 7; else acc += 45u;
        acc = acc * 38 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[7].GetHashCode();
        if ((acc & 128u) != 0) acc ^= acc >> 8; else acc += 52u;
        acc = acc * 39 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[8].GetHashCode();
        if ((acc & 256u) != 0) acc ^= acc >> 9; else acc += 59u;
        acc = acc * 40 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[9].GetHashCode();
        if ((acc & 512u) != 0) acc ^= acc >> 10; else acc += 66u;
        acc = acc * 41 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[10].GetHashCode();
        if ((acc & 1024u) != 0) acc ^= acc >> 11; else acc += 73u;
        acc = acc * 42 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[11].GetHashCode();
        if ((acc & 2048u) != 0) acc ^= acc >> 12; else acc += 80u;
        acc = acc * 43 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[12].GetHashCode();
        if ((acc & 4096u) != 0) acc ^= acc >> 13; else acc += 87u;
        acc = acc * 44 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[13].GetHashCode();
        if ((acc & 8192u) != 0) acc ^= acc >> 1; else acc += 94u;
        acc = acc * 45 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[14].GetHashCode();
        if ((acc & 16384u) != 0) acc ^= acc >> 2; else acc += 101u;
        acc = acc * 46 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[15].GetHashCode();
        if ((acc & 32768u) != 0) acc ^= acc >> 3; else acc += 108u;
        acc = acc * 47 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[0].GetHashCode();
        if ((acc & 65536u) != 0) acc ^= acc >> 4; else acc += 115u;
        acc = acc * 48 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[1].GetHashCode();
        if ((acc & 131072u) != 0) acc ^= acc >> 5; else acc += 122u;
        acc = acc * 49 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[2].GetHashCode();
        if ((acc & 262144u) != 0) acc ^= acc >> 6; else acc += 129u;
        acc = acc * 50 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[3].GetHashCode();
        if ((acc & 524288u) != 0) acc ^= acc >> 7; else acc += 136u;
        acc = acc * 51 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[4].GetHashCode();
        if ((acc & 1u) != 0) acc ^= acc >> 8; else acc += 143u;
        acc = acc * 52 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[5].GetHashCode();
        if ((acc & 2u) != 0) acc ^= acc >> 9; else acc += 150u;
        acc = acc * 53 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[6].GetHashCode();
        if ((acc & 4u) != 0) acc ^= acc >> 10; else acc += 157u;
        acc = acc * 54 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[7].GetHashCode();
        if ((acc & 8u) != 0) acc ^= acc >> 11; else acc += 164u;
        acc = acc * 55 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[8].GetHashCode();
        if ((acc & 16u) != 0) acc ^= acc >> 12; else acc += 171u;
        acc = acc * 56 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[9].GetHashCode();
        if ((acc & 32u) != 0) acc ^= acc >> 13; else acc += 178u;
        acc = acc * 57 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[10].GetHashCode();
        if ((acc & 64u) != 0) acc ^= acc >> 1; else acc += 185u;
        acc = acc * 58 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[11].GetHashCode();
        if ((acc & 128u) != 0) acc ^= acc >> 2; else acc += 192u;
        acc = acc * 59 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[12].GetHashCode();
        if ((acc & 256u) != 0) acc ^= acc >> 3; else acc += 199u;
        acc = acc * 60 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[13].GetHashCode();
        if ((acc & 512u) != 0) acc ^= acc >> 4; else acc += 206u;
        acc = acc * 61 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[14].GetHashCode();
        if ((acc & 1024u) != 0) acc ^= acc >> 5; else acc += 213u;
        acc = acc * 62 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[15].GetHashCode();
        if ((acc & 2048u) != 0) acc ^= acc >> 6; else acc += 220u;
        acc = acc * 63 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[0].GetHashCode();
        if ((acc & 4096u) != 0) acc ^= acc >> 7; else acc += 227u;
        acc = acc * 64 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[1].GetHashCode();
        if ((acc & 8192u) != 0) acc ^= acc >> 8; else acc += 234u;
        acc = acc * 65 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[2].GetHashCode();
        if ((acc & 16384u) != 0) acc ^= acc >> 9; else acc += 241u;
        acc = acc * 66 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[3].GetHashCode();
        if ((acc & 32768u) != 0) acc ^= acc >> 10; else acc += 248u;
        acc = acc * 67 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[4].GetHashCode();
        if ((acc & 65536u) != 0) acc ^= acc >> 11; else acc += 255u;
        acc = acc * 68 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[5].GetHashCode();
        if ((acc & 131072u) != 0) acc ^= acc >> 12; else acc += 262u;
        acc = acc * 69 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[6].GetHashCode();
        if ((acc & 262144u) != 0) acc ^= acc >> 13; else acc += 269u;
        acc = acc * 70 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[7].GetHashCode();
        if ((acc & 524288u) != 0) acc ^= acc >> 1; else acc += 276u;
        acc = acc * 71 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[8].GetHashCode();
        if ((acc & 1u) != 0) acc ^= acc >> 2; else acc += 283u;
        acc = acc * 72 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[9].GetHashCode();
        if ((acc & 2u) != 0) acc ^= acc >> 3; else acc += 290u;
        acc = acc * 73 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[10].GetHashCode();
        if ((acc & 4u) != 0) acc ^= acc >> 4; else acc += 297u;
        acc = acc * 74 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[11].GetHashCode();
        if ((acc & 8u) != 0) acc ^= acc >> 5; else acc += 304u;
        acc = acc * 75 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[12].GetHashCode();
        if ((acc & 16u) != 0) acc ^= acc >> 6; else acc += 311u;
        acc = acc * 76 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[13].GetHashCode();
        if ((acc & 32u) != 0) acc ^= acc >> 7; else acc += 318u;
        acc = acc * 77 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[14].GetHashCode();
        if ((acc & 64u) != 0) acc ^= acc >> 8; else acc += 325u;
        acc = acc * 78 + (uint)System.Runtime.CompilerServices.Unsafe.SizeOf<T>() + (uint)values[15].GetHashCode();
        if ((acc & 128u) != 0) acc ^= acc >> 9; else acc += 332u;
        return acc;
    }
}

internal static class Program
{
    private static readonly Type[] Leaves =
    {
        typeof(S0), typeof(S1), typeof(S2), typeof(S3), typeof(S4),
        typeof(S5), typeof(S6), typeof(S7), typeof(S8), typeof(S9),
    };

    private static int Main(string[] args)
    {
        if (args.Length != 2 || (args[0] != "jit" && args[0] != "gc") ||
            !double.TryParse(args[1], NumberStyles.Float, CultureInfo.InvariantCulture, out double n) || n <= 0)
        {
            Console.Error.WriteLine("usage: RuntimeWork jit COUNT | RuntimeWork gc SECONDS");
            return 2;
        }
        Console.Out.WriteLine("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
        long done = args[0] == "jit" ? CompileMany((int)Math.Min(n, 1000)) : CollectFor(n);
        Console.Out.WriteLine("done " + done.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long CompileMany(int count)
    {
        uint sum = 0;
        for (int i = 0; i < count; i++)
        {
            Type inner = typeof(Pair<,>).MakeGenericType(Leaves[i / 10 % 10], Leaves[i % 10]);
            Type t = typeof(Pair<,>).MakeGenericType(Leaves[i / 100 % 10], inner);
            var run = typeof(Driver<>).MakeGenericType(t).GetMethod("Run")!;
            sum += (uint)run.Invoke(null, null)!;
        }
        GC.KeepAlive(sum);
        return count;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long CollectFor(double seconds)
    {
        var roots = new Node[1 << 16];
        for (int i = 0; i < 2_000_000; i++)
            roots[i & (roots.Length - 1)] = new Node { Next = roots[i & (roots.Length - 1)], Value = i };
        long collections = 0;
        var until = DateTime.UtcNow.AddSeconds(seconds);
        while (DateTime.UtcNow < until)
        {
            GC.Collect();
            collections++;
        }
        GC.KeepAlive(roots);
        return collections;
    }
}
