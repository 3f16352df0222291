#!/usr/bin/env python3
"""Forges hostile session logs from a real one, for the tests that feed them
to clrscope report and the terminal UI.  The records keep valid framing and
CRC-32C, so they reach the decoders and the model instead of being skipped
as damage (clrscope-session(5) describes the format).

    forgelog.py mutate SEED SEGMENT   flips a few payload bytes of every record
    forgelog.py hostile SEGMENT       appends crafted records (cycles, escapes,
                                      huge ids and counts, an early END ...)

Each rewrites SEGMENT in place, deterministically.
"""
import random
import struct
import sys

HEADER_LEN, REC_HEADER_LEN = 16, 12
FRAMES, STACKS, SAMPLES, MESSAGE, END, THREAD = 3, 4, 5, 7, 8, 2


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc_table()


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def frame(rtype, payload):
    head = struct.pack("<HI", rtype, len(payload))
    return b"\xc5\x5c" + head + struct.pack("<I", crc32c(payload, crc32c(head))) + payload


def records(data):
    """The (type, payload) of each whole, valid record after the header."""
    at, out = HEADER_LEN, []
    while at + REC_HEADER_LEN <= len(data):
        rtype, length = struct.unpack_from("<HI", data, at + 2)
        end = at + REC_HEADER_LEN + length
        if data[at:at + 2] != b"\xc5\x5c" or end > len(data):
            break
        out.append((rtype, data[at + REC_HEADER_LEN:end]))
        at = end
    return out


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def text(s):
    raw = s if isinstance(s, bytes) else s.encode("utf-8")
    return varint(len(raw)) + raw


def frames(defs):
    return frame(FRAMES, b"".join(varint(i) + text(name) + text(module) for i, name, module in defs))


def stacks(defs):
    return frame(STACKS, b"".join(varint(i) + varint(parent) + varint(f) for i, parent, f in defs))


def ticks(tick_list):
    """tick_list: (delta_us, suspend_ns, [(thread_ref, stack_id), ...])"""
    body = b""
    for delta, suspend, samples in tick_list:
        body += varint(delta) + varint(suspend) + varint(len(samples))
        body += b"".join(varint(t) + varint(s) for t, s in samples)
    return frame(SAMPLES, body)


def message(level, s):
    return frame(MESSAGE, struct.pack("<QB", 1000, level) + text(s))


ESCAPES = [
    b"\x1b]0;PWNED-TITLE\x07Evil.Title",
    b"\x1b[2J\x1b[HEvil.ClearScreen",
    b"\x1b[31;5mEvil.Blink\x1b[0m",
    b"Evil.\xff\xfe\xfdInvalidUtf8",
    b"Evil.\x00Nul\x08\x08\x08Backspaces",
    "Evil.\u202eReversed.\u200bZeroWidth".encode(),
]


def hostile():
    """Records that are well framed and badly meant."""
    out = [frames([(16 + i, name, b"\x1b]2;PWNED-MODULE\x07m.dll") for i, name in enumerate(ESCAPES)])]
    out.append(frames([(30, "Evil.Long" + "x" * 200000, "m.dll"), ((1 << 24) - 1, "Evil.AtTheLimit", "m"),
                       (1 << 62, "Evil.HugeId", "m")]))
    cycle = [(900000, 900001, 16), (900001, 900000, 17), (900002, 900002, 18)]
    deep = [(1000000 + i, 1000000 + i - 1 if i else 0, 16 + i % 6) for i in range(20000)]
    out.append(stacks(cycle + deep + [(1 << 40, 1, 16), (5, 1 << 50, 1 << 33)]))
    out.append(ticks([
        (1000, 50000, [(1, 900000), (1, 900002), (2, 1019999), (3, 999999), (1 << 60, 1 << 60)]),
        (1 << 62, 1 << 63, [(1, 900001)]),
        (5, 5, [(0, 0)] * 1000),
    ]))
    out.append(frame(SAMPLES, varint(1) + varint(1) + varint(1 << 40)))  # a count no payload can hold
    out.append(message(2, b"\x1b]0;PWNED-MESSAGE\x07\x1b[2Jagent says hi"))
    out.append(message(200, "level 200"))
    out.append(frame(THREAD, varint(7) + struct.pack("<QI", 1, 2) + text(b"\x1b[2Jthread\x07")))
    out.append(frame(END, struct.pack("<QB", 5, 3) + text(b"\x1b[2Jearly end")))
    out.append(frame(SAMPLES, varint(1) + varint(1) + varint(1) + varint(1) + varint(1019999)))  # after END
    out.append(frame(0xBEEF, b"\x00" * 64))  # a kind of record from the future
    out.append(frame(FRAMES, b""))
    out.append(frame(STACKS, b"\xff" * 16))  # a varint that never ends
    return b"".join(out)


def mutate(data, seed):
    rng = random.Random(seed)
    out = bytearray(data[:HEADER_LEN])
    for rtype, payload in records(data):
        p = bytearray(payload)
        for _ in range(rng.randint(1, 4) if p else 0):
            p[rng.randrange(len(p))] = rng.randrange(256)
        out += frame(rtype, bytes(p))
    return bytes(out)


def main():
    cmd, path = sys.argv[1], sys.argv[-1]
    with open(path, "rb") as f:
        data = f.read()
    if cmd == "mutate":
        data = mutate(data, int(sys.argv[2]))
    elif cmd == "hostile":
        data = data[:HEADER_LEN] + b"".join(frame(t, p) for t, p in records(data)) + hostile()
    else:
        sys.exit("usage: forgelog.py mutate SEED SEGMENT | hostile SEGMENT")
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
