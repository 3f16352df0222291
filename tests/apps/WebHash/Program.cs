// WebHash PORT SECONDS
//
// A small ASP.NET Core (Kestrel) server on 127.0.0.1:PORT, for profiling a
// real web stack under a load generator: GET /hash?n=K hashes a 1 KiB buffer
// K times with SHA-256 (OpenSSL underneath) and answers with the hex digest;
// GET /json answers a small JSON document. Stops by itself after SECONDS.
//
// stdout: "listening <PORT>" once requests are served, then "served <N>".
using System.Globalization;
using System.Security.Cryptography;

var port = args.Length == 2 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 0;
var seconds = args.Length == 2 ? double.Parse(args[1], CultureInfo.InvariantCulture) : 0;
if (port <= 0 || seconds <= 0)
{
    Console.Error.WriteLine("usage: WebHash PORT SECONDS");
    return 2;
}

var builder = WebApplication.CreateSlimBuilder();
builder.Logging.ClearProviders();
builder.WebHost.UseUrls($"http://127.0.0.1:{port}");
var app = builder.Build();

long served = 0;
var block = new byte[1024];
new Random(42).NextBytes(block);

app.MapGet("/hash", (int? n) =>
{
    Interlocked.Increment(ref served);
    var digest = block;
    for (int i = 0; i < Math.Clamp(n ?? 16, 1, 10000); i++)
        digest = SHA256.HashData(i == 0 ? block : digest);
    return Convert.ToHexString(digest);
});
app.MapGet("/json", () =>
{
    Interlocked.Increment(ref served);
    return Results.Json(new Dictionary<string, long> { ["served"] = served, ["time"] = Environment.TickCount64 });
});

app.Lifetime.ApplicationStarted.Register(() =>
{
    Console.Out.WriteLine("listening " + port.ToString(CultureInfo.InvariantCulture));
    Console.Out.Flush();
});
var run = app.RunAsync();
await Task.WhenAny(run, Task.Delay(TimeSpan.FromSeconds(seconds)));
await app.StopAsync();
Console.Out.WriteLine("served " + Interlocked.Read(ref served).ToString(CultureInfo.InvariantCulture));
return 0;
