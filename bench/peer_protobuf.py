#!/usr/bin/env python3
"""The benchmark's peer: Python protobuf (upb backend) parsing an XSpace with FromString.

The XSpace schema is built at run time with descriptor_pb2 from the field numbers of
spec/xprof-tools.md section 1 (no generated code, no protoc), so the peer decodes exactly
the messages profq reads.   peer_protobuf.py FILE   prints the events it counted and the
in-process parse time; `--proto` prints the equivalent .proto text instead.
"""
import sys
import time

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.internal import api_implementation

F = descriptor_pb2.FieldDescriptorProto
PKG = "tensorflow.profiler"
INT64, UINT64, DOUBLE = F.TYPE_INT64, F.TYPE_UINT64, F.TYPE_DOUBLE
STRING, BYTES, MSG = F.TYPE_STRING, F.TYPE_BYTES, F.TYPE_MESSAGE
REP = True

# message -> [(field, number, type or message name, repeated, oneof)]
SCHEMA = {
    "XSpace": [("planes", 1, "XPlane", REP, None), ("errors", 2, STRING, REP, None),
               ("warnings", 3, STRING, REP, None), ("hostnames", 4, STRING, REP, None)],
    "XPlane": [("id", 1, INT64, False, None), ("name", 2, STRING, False, None),
               ("lines", 3, "XLine", REP, None),
               ("event_metadata", 4, ("map", "XEventMetadata"), REP, None),
               ("stat_metadata", 5, ("map", "XStatMetadata"), REP, None),
               ("stats", 6, "XStat", REP, None)],
    "XLine": [("id", 1, INT64, False, None), ("display_id", 10, INT64, False, None),
              ("name", 2, STRING, False, None), ("display_name", 11, STRING, False, None),
              ("timestamp_ns", 3, INT64, False, None), ("duration_ps", 9, INT64, False, None),
              ("events", 4, "XEvent", REP, None)],
    "XEvent": [("metadata_id", 1, INT64, False, None), ("offset_ps", 2, INT64, False, "data"),
               ("num_occurrences", 5, INT64, False, "data"),
               ("duration_ps", 3, INT64, False, None), ("stats", 4, "XStat", REP, None)],
    "XStat": [("metadata_id", 1, INT64, False, None), ("double_value", 2, DOUBLE, False, "value"),
              ("uint64_value", 3, UINT64, False, "value"), ("int64_value", 4, INT64, False, "value"),
              ("str_value", 5, STRING, False, "value"), ("bytes_value", 6, BYTES, False, "value"),
              ("ref_value", 7, UINT64, False, "value")],
    "XEventMetadata": [("id", 1, INT64, False, None), ("name", 2, STRING, False, None),
                       ("display_name", 4, STRING, False, None), ("metadata", 3, BYTES, False, None),
                       ("stats", 5, "XStat", REP, None), ("child_id", 6, INT64, REP, None)],
    "XStatMetadata": [("id", 1, INT64, False, None), ("name", 2, STRING, False, None),
                      ("description", 3, STRING, False, None)],
}


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def build_file():
    fd = descriptor_pb2.FileDescriptorProto(name="xplane_bench.proto", package=PKG,
                                            syntax="proto3")
    for mname, fields in SCHEMA.items():
        m = fd.message_type.add(name=mname)
        oneofs = []
        for fname, num, typ, rep, oneof in fields:
            f = m.field.add(name=fname, number=num,
                            label=F.LABEL_REPEATED if rep else F.LABEL_OPTIONAL)
            if isinstance(typ, tuple):  # map<int64, typ[1]>
                entry = m.nested_type.add(name=camel(fname) + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, label=F.LABEL_OPTIONAL, type=INT64)
                entry.field.add(name="value", number=2, label=F.LABEL_OPTIONAL, type=MSG,
                                type_name=".%s.%s" % (PKG, typ[1]))
                f.type = MSG
                f.type_name = ".%s.%s.%s" % (PKG, mname, entry.name)
            elif isinstance(typ, str):
                f.type = MSG
                f.type_name = ".%s.%s" % (PKG, typ)
            else:
                f.type = typ
            if oneof:
                if oneof not in oneofs:
                    oneofs.append(oneof)
                    m.oneof_decl.add(name=oneof)
                f.oneof_index = oneofs.index(oneof)
    return fd


def xspace_class():
    pool = descriptor_pool.DescriptorPool()
    pool.Add(build_file())
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(PKG + ".XSpace"))


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--proto":
        print(build_file())
        return 0
    if len(sys.argv) != 2:
        print("usage: peer_protobuf.py FILE | --proto", file=sys.stderr)
        return 2
    XSpace = xspace_class()
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    t0 = time.perf_counter()
    space = XSpace.FromString(data)
    t1 = time.perf_counter()
    events = sum(len(line.events) for plane in space.planes for line in plane.lines)
    t2 = time.perf_counter()
    print("backend %s" % api_implementation.Type())
    print("events %d" % events)
    print("parse_s %.3f count_s %.3f" % (t1 - t0, t2 - t1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
