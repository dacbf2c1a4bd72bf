"""A tiny protobuf writer (stdlib only) for the seed generators of fuzz/corpus: fields are
built as bytes from their numbers, so the corpus holds no third-party data."""
import struct

VARINT, FIXED64, LEN, FIXED32 = 0, 1, 2, 5


def varint(v):
    v &= (1 << 64) - 1  # negative int64 -> ten bytes, as protobuf writes it
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(num, wire):
    return varint((num << 3) | wire)


def fv(num, v):  # varint field
    return tag(num, VARINT) + varint(v)


def fl(num, payload):  # length-delimited field (str is UTF-8 encoded)
    if isinstance(payload, str):
        payload = payload.encode()
    return tag(num, LEN) + varint(len(payload)) + payload


def fd(num, x):  # double
    return tag(num, FIXED64) + struct.pack("<d", x)


def f32(num, x):  # fixed32
    return tag(num, FIXED32) + struct.pack("<I", x)
