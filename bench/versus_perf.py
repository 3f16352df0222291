#!/usr/bin/env python3
"""Side by side: clrscope's CPU samples and perf's, of the same threads over the same window.

    versus_perf.py CLRSCOPE DIR PERF_PERIOD_NS TOP

DIR holds what bench/versus_perf.sh gathered for one server: `before` and
`after` (each thread's "TID CPU_NS NAME" from its schedstat at the window's
ends), `window` (its two ends, Unix seconds), `report.json` (clrscope's JSON
report of the session, in `session`) and `perf.txt` (`perf script -F
tid,ip,sym,dso` of perf's cpu-clock samples, one every PERF_PERIOD_NS of a
thread's CPU time, with call chains).

Per thread group (the pool's workers, the socket engine): the CPU time by the
kernel's count over the window, and what each tool's samples stand for
(samples times their period: clrscope's a sampling period each).  Then each
leaf's share of the workers' samples in both, and the total variation
distance between the two (half the sum of the differences: 0 alike, 1 apart)
beside what sampling alone gives (as many samples drawn from perf's own, 50
times).  A leaf is the sample's innermost managed method (perf names JIT
code from the runtime's perf map), or the native module it is in; a sample
in the kernel counts where its thread returns to user mode, where a signal
would find it.
"""
import collections
import json
import os
import random
import re
import subprocess
import sys


def schedstat(path):
    out = {}
    for line in open(path):
        tid, ns, name = line.rstrip("\n").split(" ", 2)
        out[tid] = (int(ns), name)
    return out


def plain(name):
    """A method's name without generic arguments, parameters or arity, with '.' before the method."""
    for _ in range(3):
        name = re.sub(r"\[[^\[\]]*\]", "", name)
    return re.sub(r"`\d+", "", name).replace("::", ".")


def clrscope_leaf(frames):
    leaf = frames[-1]
    m = re.match(r"([^!+;]+\.so[.\d]*)[!+]", leaf)
    if m:
        return "native " + m.group(1)
    if leaf in ("[runtime stub]", "[runtime_stub]"):
        return "runtime stubs"
    if leaf.startswith("[JIT"):
        return "native libclrjit.so"
    if leaf.startswith("["):
        return leaf
    return plain(leaf)


def perf_leaf(lines):
    for line in lines:
        m = re.match(r"[0-9a-f]+ (.*) \((.*)\)$", line.strip())
        if not m:
            continue
        sym, dso = m.groups()
        if dso.startswith("[kernel"):
            continue  # where it returns to user mode counts
        if dso.startswith("/tmp/perf-"):
            if sym.startswith("stub "):
                return "runtime stubs"
            m = re.search(r"\] ([^\s(]+)\(", sym) or re.search(r"\] ([^ (]+)", sym)
            return plain(m.group(1)) if m else sym
        return "native " + os.path.basename(dso.split(" ")[0])
    return "(kernel only)"


def main():
    clrscope, d, period_ns, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    before, after = schedstat(d + "/before"), schedstat(d + "/after")
    t0, t1 = (float(x) for x in open(d + "/window").read().split())
    proc = json.load(open(d + "/report.json"))["processes"][0]
    start = proc["start_unix_ms"] / 1000.0
    rate = proc["rate_hz"]
    group_of = {tid: ("workers" if name == ".NET TP Worker" else "socket engine") for tid, (_, name) in before.items()}
    kernel_ns = collections.Counter()
    for tid, (ns, _) in before.items():
        if tid in after:
            kernel_ns[group_of[tid]] += after[tid][0] - ns

    ours, ours_n = collections.Counter(), collections.Counter()
    for tid in before:
        out = subprocess.run([clrscope, "report", "--format", "collapsed", "--time", "cpu", "--thread", tid,
                              "--from", "%.3f" % (t0 - start), "--to", "%.3f" % (t1 - start), d + "/session"],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            stack, n = line.rsplit(" ", 1)
            ours_n[group_of[tid]] += int(n)
            if group_of[tid] == "workers":
                ours[clrscope_leaf(stack.split(";"))] += int(n)

    theirs, theirs_n = collections.Counter(), collections.Counter()
    for block in open(d + "/perf.txt").read().split("\n\n"):
        lines = block.strip().splitlines()
        if len(lines) < 2:
            continue
        group = group_of.get(lines[0].split()[0])
        if not group:
            continue
        theirs_n[group] += 1
        if group == "workers":
            theirs[perf_leaf(lines[1:])] += 1

    print("WebHash, %.1f s window: CPU time by the kernel's count, and what each tool's samples stand for" % (t1 - t0))
    for g in ("workers", "socket engine"):
        k = kernel_ns[g] / 1e6
        c = ours_n[g] * 1000.0 / rate
        p = theirs_n[g] * period_ns / 1e6
        print("  %-14s kernel %8.1f ms   clrscope %8.1f ms (%.2f)   perf %8.1f ms (%.2f)" %
              (g, k, c, c / k if k else 0, p, p / k if k else 0))
    tc, tp = sum(ours.values()), sum(theirs.values())
    if not tc or not tp:
        print("  no samples of the workers to compare")
        return
    keys = sorted(set(ours) | set(theirs), key=lambda k: -(ours[k] / tc + theirs[k] / tp))
    print("the workers' CPU by leaf, %% of each tool's samples (clrscope %d, perf %d):" % (tc, tp))
    print("  clrscope   perf")
    for k in keys[:top]:
        print("  %7.2f  %7.2f  %s" % (100.0 * ours[k] / tc, 100.0 * theirs[k] / tp, k[:110]))
    tv = 0.5 * sum(abs(ours[k] / tc - theirs[k] / tp) for k in keys)
    random.seed(1)
    population = [k for k, v in theirs.items() for _ in range(v)]
    drawn = sorted(0.5 * sum(abs(c[k] / tc - theirs[k] / tp) for k in set(c) | set(theirs))
                   for c in (collections.Counter(random.choices(population, k=tc)) for _ in range(50)))
    print("  distance between the two: %.3f (%d samples drawn from perf's own: %.3f-%.3f)" %
          (tv, tc, drawn[2], drawn[-3]))


if __name__ == "__main__":
    main()
