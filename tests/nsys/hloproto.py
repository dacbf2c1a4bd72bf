"""The after-optimisation HloProtos of an nsys-jax archive, decoded with the XLA protos the
archive carries (compiled by grpc_tools.protoc into a temporary directory): shared by the
heap and flame checks of tests/nsys (run in build/venv-test: protobuf, grpcio-tools)."""
import importlib
import lzma
import pathlib
import sys
import zipfile


def load(archive, tmp):
    """(hlo_pb2, {program id string: serialized HloProto bytes}); hlo_pb2 None when the
    protos do not compile."""
    from grpc_tools import protoc

    tmp = pathlib.Path(tmp)
    dumps = {}
    with zipfile.ZipFile(archive) as z:
        protos = [n for n in z.namelist() if n.startswith("protos/") and n.endswith(".proto")]
        z.extractall(tmp, protos)
        for n in z.namelist():
            base = n.split("/")[-1]
            if n.startswith("dump/module_") and base.endswith("_gpu_after_optimizations.hlo.pb.xz"):
                dumps[str(int(base[len("module_"):].split(".")[0]))] = lzma.decompress(z.read(n))
    out = tmp / "py"
    out.mkdir()
    wkt = pathlib.Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto
    rc = protoc.main(["protoc", f"-I{tmp / 'protos'}", f"-I{wkt}", f"--python_out={out}",
                      str(tmp / "protos/xla/service/hlo.proto"),
                      str(tmp / "protos/xla/xla_data.proto")])
    if rc != 0:
        return None, dumps
    sys.path.insert(0, str(out))
    return importlib.import_module("xla.service.hlo_pb2"), dumps
