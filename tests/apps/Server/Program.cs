// Server REQUESTS
//
// A server's work without the network: REQUESTS requests handled on the
// thread pool, 32 at a time.  Each parses its request line, looks its key up
// in a shared cache under one lock, awaits a yield, builds a 4 KiB response
// and hashes it; one in a hundred fails with an exception that its handler
// catches.  The work is fixed by REQUESTS; the program times itself from the first
// request to the last.
//
// stdout: "pid <N>", "elapsed_ms <ms>", "requests_per_s <n>", "checksum <n>".
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;

namespace Clrscope.TestApps;

internal static class Program
{
    private const int Concurrency = 32;
    private static readonly object s_cacheLock = new();
    private static readonly Dictionary<string, int> s_cache = new();
    private static long s_checksum;

    private static int Main(string[] args)
    {
        if (args.Length != 1
            || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int requests)
            || requests < 1)
        {
            Console.Error.WriteLine("usage: Server REQUESTS");
            return 2;
        }
        Console.Out.WriteLine("pid " + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));

        var sw = Stopwatch.StartNew();
        int next = -1;
        var workers = new Task[Concurrency];
        for (int w = 0; w < Concurrency; w++)
        {
            workers[w] = Task.Run(async () =>
            {
                int i;
                while ((i = Interlocked.Increment(ref next)) < requests)
                {
                    await Handle(i);
                }
            });
        }
        Task.WaitAll(workers);
        double ms = sw.Elapsed.TotalMilliseconds;

        Console.Out.WriteLine("elapsed_ms " + ms.ToString("F3", CultureInfo.InvariantCulture));
        Console.Out.WriteLine("requests_per_s " + (requests / (ms / 1000.0)).ToString("F0", CultureInfo.InvariantCulture));
        Console.Out.WriteLine("checksum " + s_checksum.ToString(CultureInfo.InvariantCulture));
        return 0;
    }

    private static async Task Handle(int i)
    {
        try
        {
            string line = "GET /items/" + (i % 500).ToString(CultureInfo.InvariantCulture) + "?v=" +
                          (i & 7).ToString(CultureInfo.InvariantCulture) + " HTTP/1.1";
            string key = Parse(line);
            int hits = Lookup(key);
            await Task.Yield();
            if (i % 100 == 99)
            {
                Fail(i);
            }
            Interlocked.Add(ref s_checksum, Respond(key, hits));
        }
        catch (InvalidOperationException)
        {
            Interlocked.Increment(ref s_checksum);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static string Parse(string line)
    {
        string[] parts = line.Split(' ');
        string path = parts[1];
        int q = path.IndexOf('?', StringComparison.Ordinal);
        return q < 0 ? path : path.Substring(0, q);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Lookup(string key)
    {
        lock (s_cacheLock)
        {
            s_cache.TryGetValue(key, out int hits);
            s_cache[key] = hits + 1;
            return hits;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Fail(int i) =>
        throw new InvalidOperationException("request " + i.ToString(CultureInfo.InvariantCulture) + " failed");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Respond(string key, int hits)
    {
        var body = new StringBuilder(4096);
        while (body.Length < 4000)
        {
            body.Append(key).Append(':').Append(hits).Append(';');
        }
        byte[] bytes = Encoding.UTF8.GetBytes(body.ToString());
        long h = 1469598103934665603;
        foreach (byte b in bytes)
        {
            h = (h ^ b) * 1099511628211;
        }
        return h & 0xffff;
    }
}
