// Workload ITERATIONS
// Workload --stream SECONDS
//
// Fixed, deterministic, single-threaded CPU benchmark: ITERATIONS units of a managed mix
// (recursive tree build/walk and a fixed-depth recursive call tree, sorting a seeded pseudo-random
// array with Array.Sort and a recursive merge sort, Dictionary counting, string
// building and hashing). Stack depth during the recursive parts is ~15-20 frames.
// The checksum depends only on ITERATIONS.
//
// stdout: "pid <N>", "elapsed_ms <ms, 3 decimals>" (Stopwatch around the work only),
// "checksum <N>".
//
// --stream runs units one after another for SECONDS and prints "unit <index> <unix time in ns>"
// as each ends, so that a benchmark can count the work done in any span of wall time (the
// paired CPU-loop benchmark, bench/paired.sh -l, which profiles one process in turns).
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;

namespace Clrscope.TestApps;

internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length == 2 && args[0] == "--stream"
            && int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out int seconds))
        {
            Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
            Bench.Stream(TimeSpan.FromSeconds(seconds));
            return 0;
        }
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int iterations))
        {
            Console.Error.WriteLine("usage: Workload ITERATIONS | Workload --stream SECONDS");
            return 2;
        }

        Say("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        long start = Stopwatch.GetTimestamp();
        ulong checksum = Bench.Run(iterations);
        double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;

        Say("elapsed_ms " + ms.ToString("F3", CultureInfo.InvariantCulture));
        Say("checksum " + checksum.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}

internal static class Mix
{
    // Order-dependent 64-bit mixing (FNV-1a style), deterministic across runs.
    public static ulong Add(ulong h, ulong v)
    {
        h ^= v;
        h *= 1099511628211UL;
        return h ^ (h >> 29);
    }
}

internal struct XorShift
{
    private ulong _s;

    public XorShift(ulong seed) => _s = seed * 0x9E3779B97F4A7C15UL + 0x632BE59BD9B4E019UL;

    public uint Next()
    {
        _s ^= _s << 13;
        _s ^= _s >> 7;
        _s ^= _s << 17;
        return (uint)(_s >> 16);
    }
}

internal static class Bench
{
    // Sizes of one unit; tuned so that "Workload 100" takes roughly 3 s.
    private const int TreeDepth = 15;
    private const int BranchDepth = 11;
    private const int SortLength = 16384;   // 64 KB arrays: below the LOH threshold
    private const int SortRounds = 8;
    private const int DictOps = 240000;
    private const int StringCount = 19000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Run(int iterations)
    {
        ulong h = 14695981039346656037UL;
        for (int i = 0; i < iterations; i++)
        {
            h = Mix.Add(h, Unit(i));
        }
        return h;
    }

    // Units until the time is up, each end told with the wall clock (the benchmark's windows are
    // taken with date(1)); the checksum is kept so that the work cannot be optimised away.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Stream(TimeSpan length)
    {
        long start = Stopwatch.GetTimestamp();
        ulong h = 14695981039346656037UL;
        for (int i = 0; Stopwatch.GetElapsedTime(start) < length; i++)
        {
            h = Mix.Add(h, Unit(i));
            long ns = (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;
            Console.Out.WriteLine("unit " + i.ToString(CultureInfo.InvariantCulture) + " "
                                  + ns.ToString(CultureInfo.InvariantCulture));
        }
        Console.Out.WriteLine("checksum " + h.ToString(CultureInfo.InvariantCulture));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong Unit(int i)
    {
        ulong h = (ulong)i;
        h = Mix.Add(h, Recursion.Run(i));
        h = Mix.Add(h, Sorting.Run(i));
        h = Mix.Add(h, Dictionaries.Run(i));
        h = Mix.Add(h, StringWork.Run(i));
        return h;
    }

    internal static class Recursion
    {
        private sealed class Node
        {
            public Node? Left;
            public Node? Right;
            public int Value;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Run(int i)
        {
            Node root = Build(TreeDepth, i);
            ulong h = (ulong)Sum(root);
            h = Mix.Add(h, Branch(BranchDepth, (ulong)i));
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static Node Build(int depth, int seed)
        {
            var n = new Node { Value = seed * 7 + depth };
            if (depth > 0)
            {
                n.Left = Build(depth - 1, seed * 3 + 1);
                n.Right = Build(depth - 1, seed * 5 + 2);
            }
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static long Sum(Node? n)
        {
            if (n is null)
            {
                return 0;
            }
            return n.Value + 2 * Sum(n.Left) - Sum(n.Right);
        }

        // Ternary call tree of fixed depth (3^depth leaves); bounded stack depth.
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static ulong Branch(int depth, ulong seed)
        {
            if (depth == 0)
            {
                return seed * 0x9E3779B97F4A7C15UL >> 7;
            }
            ulong a = Branch(depth - 1, seed * 3 + 1);
            ulong b = Branch(depth - 1, seed * 3 + 2);
            ulong c = Branch(depth - 1, seed * 3 + 3);
            return (a ^ (b << 1)) + c;
        }
    }

    internal static class Sorting
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Run(int i)
        {
            ulong h = 0;
            for (int r = 0; r < SortRounds; r++)
            {
                h = Mix.Add(h, SortOnce(i * SortRounds + r));
            }
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static ulong SortOnce(int i)
        {
            int[] data = Fill(i);
            int[] copy = (int[])data.Clone();
            Array.Sort(data);
            MergeSort(copy, new int[copy.Length], 0, copy.Length);
            ulong h = 0;
            for (int k = 0; k < data.Length; k += 97)
            {
                h = Mix.Add(h, (ulong)(uint)data[k] ^ ((ulong)(uint)copy[k] << 32));
            }
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int[] Fill(int seed)
        {
            var rng = new XorShift((ulong)seed + 1);
            var a = new int[SortLength];
            for (int k = 0; k < a.Length; k++)
            {
                a[k] = (int)(rng.Next() & 0x7FFFFFFF);
            }
            return a;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void MergeSort(int[] a, int[] tmp, int lo, int hi)
        {
            if (hi - lo <= 16)
            {
                InsertionSort(a, lo, hi);
                return;
            }
            int mid = (lo + hi) >>> 1;
            MergeSort(a, tmp, lo, mid);
            MergeSort(a, tmp, mid, hi);
            Merge(a, tmp, lo, mid, hi);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void InsertionSort(int[] a, int lo, int hi)
        {
            for (int k = lo + 1; k < hi; k++)
            {
                int v = a[k];
                int j = k - 1;
                while (j >= lo && a[j] > v)
                {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Merge(int[] a, int[] tmp, int lo, int mid, int hi)
        {
            int l = lo, r = mid, o = lo;
            while (l < mid && r < hi)
            {
                tmp[o++] = a[l] <= a[r] ? a[l++] : a[r++];
            }
            while (l < mid)
            {
                tmp[o++] = a[l++];
            }
            while (r < hi)
            {
                tmp[o++] = a[r++];
            }
            Array.Copy(tmp, lo, a, lo, hi - lo);
        }
    }

    internal static class Dictionaries
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Run(int i)
        {
            var rng = new XorShift((ulong)i * 31 + 7);
            var counts = new Dictionary<int, int>();
            for (int k = 0; k < DictOps; k++)
            {
                Bump(counts, (int)(rng.Next() % 5000));
            }
            // Remove a deterministic subset, then sum what is left.
            for (int key = 0; key < 5000; key += 3)
            {
                counts.Remove(key);
            }
            ulong h = (ulong)counts.Count;
            long weighted = 0;
            foreach (KeyValuePair<int, int> kv in counts)
            {
                weighted += (long)kv.Key * kv.Value;
            }
            return Mix.Add(h, (ulong)weighted);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Bump(Dictionary<int, int> counts, int key)
        {
            counts.TryGetValue(key, out int c);
            counts[key] = c + 1;
        }
    }

    internal static class StringWork
    {
        private static readonly string[] Words =
        {
            "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
            "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Run(int i)
        {
            var rng = new XorShift((ulong)i * 131 + 3);
            var seen = new Dictionary<string, int>(StringComparer.Ordinal);
            var sb = new StringBuilder();
            ulong h = 0;
            for (int k = 0; k < StringCount; k++)
            {
                string s = Compose(sb, ref rng, k);
                seen.TryGetValue(s, out int c);
                seen[s] = c + 1;
                h = Mix.Add(h, Hash(s));
            }
            return Mix.Add(h, (ulong)seen.Count);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static string Compose(StringBuilder sb, ref XorShift rng, int k)
        {
            sb.Clear();
            int parts = 2 + (int)(rng.Next() % 3);
            for (int p = 0; p < parts; p++)
            {
                if (p > 0)
                {
                    sb.Append('-');
                }
                sb.Append(Words[rng.Next() % (uint)Words.Length]);
            }
            sb.Append('#').Append(k % 64);
            return sb.ToString().ToUpperInvariant();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static ulong Hash(string s)
        {
            ulong h = 14695981039346656037UL;
            foreach (char ch in s)
            {
                h = (h ^ ch) * 1099511628211UL;
            }
            return h;
        }
    }
}
