#!/usr/bin/python3
"""A stand-in for a diagnostics socket, for the trust tests.

fakeruntime.py silent PATH LOG: listens on PATH, accepts, never answers;
  appends what each connection sent to LOG (so a test can tell whether a
  client trusted it).
fakeruntime.py info PATH LOG: listens on PATH and answers ProcessInfo2
  with strings full of terminal escapes, as a hostile process could.
PATH may contain {pid} and {start} (this process's pid and start time),
the name a real runtime would use.  Prints "ready" once it listens.
"""
import os
import socket
import struct
import sys
import threading


def start_time():
    with open("/proc/self/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[19]


def ipc_string(s):
    units = (s + "\0").encode("utf-16-le")
    return struct.pack("<I", len(units) // 2) + units


def info_reply():
    hostile = "\x1b]0;owned\x07\x1b[2J\u009b31m"
    payload = struct.pack("<Q", os.getpid()) + bytes(16)
    for s in ("cmd" + hostile, "Linux" + hostile, "x64", "Evil" + hostile, "10.0.0" + hostile):
        payload += ipc_string(s)
    header = b"DOTNET_IPC_V1\0" + struct.pack("<HBBH", 20 + len(payload), 0xFF, 0x00, 0)
    return header + payload


def serve(conn, mode, log):
    data = conn.recv(4096)
    with open(log, "ab") as f:
        f.write(data)
    if mode == "info":
        conn.sendall(info_reply())
        conn.close()
    # silent: keep the connection open and say nothing


def main():
    mode, path, log = sys.argv[1], sys.argv[2], sys.argv[3]
    path = path.format(pid=os.getpid(), start=start_time())
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(16)
    print("ready", path, flush=True)
    held = []
    while True:
        conn, _ = sock.accept()
        held.append(conn)
        threading.Thread(target=serve, args=(conn, mode, log), daemon=True).start()


main()
