"""Runs a gRPC code generator on only the files that declare a service (for ``buf.gen.yaml``).

    python scripts/protoc_gen_services.py grpc_python        # grpcio-tools' gRPC stubs
    python scripts/protoc_gen_services.py PLUGIN [ARGS...]   # a plugin: protoc-gen-mypy_grpc

buf hands a plugin every file of the input, and gRPC generators write a file for each, empty of
stubs for the files with messages only; the stubs are kept for the files that declare a service,
as protoc was asked for them before (``cards_pb2_grpc.py`` would import nothing useful).

grpcio-tools builds its gRPC generator into its own protoc (``--grpc_python_out``) and ships no
plugin executable, and buf runs only protoc's own generators as built-ins: ``grpc_python`` hands
the files to grpcio-tools' protoc as a descriptor set and answers with the files it wrote, so the
output is grpcio-tools' own.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

#: buf warns about a plugin that does not say it understands proto3 `optional`.
_FEATURES = plugin_pb2.CodeGeneratorResponse.FEATURE_PROTO3_OPTIONAL


def services_only(request: plugin_pb2.CodeGeneratorRequest) -> plugin_pb2.CodeGeneratorRequest:
    """The request with only the files to generate that declare a service."""
    with_services = {file.name for file in request.proto_file if file.service}
    narrowed = plugin_pb2.CodeGeneratorRequest()
    narrowed.CopyFrom(request)
    del narrowed.file_to_generate[:]
    narrowed.file_to_generate.extend(n for n in request.file_to_generate if n in with_services)
    return narrowed


def grpc_python(request: plugin_pb2.CodeGeneratorRequest) -> plugin_pb2.CodeGeneratorResponse:
    """The gRPC stubs of the request's files, as grpcio-tools' protoc writes them."""
    from grpc_tools import protoc  # the dev extras' grpcio-tools

    response = plugin_pb2.CodeGeneratorResponse(supported_features=_FEATURES)
    if not request.file_to_generate:
        return response
    with tempfile.TemporaryDirectory() as tmp:
        descriptors = Path(tmp, "input.binpb")
        descriptors.write_bytes(
            descriptor_pb2.FileDescriptorSet(file=request.proto_file).SerializeToString()
        )
        out = Path(tmp, "out")
        out.mkdir()
        option = f"{request.parameter}:" if request.parameter else ""
        status = protoc.main(
            [
                "protoc",
                f"--descriptor_set_in={descriptors}",
                f"--grpc_python_out={option}{out}",
                *request.file_to_generate,
            ]
        )
        if status != 0:
            response.error = f"grpcio-tools' protoc exited with status {status}"
            return response
        for path in sorted(p for p in out.rglob("*") if p.is_file()):
            response.file.add(name=path.relative_to(out).as_posix(), content=path.read_text())
    return response


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit(__doc__)
    request = services_only(plugin_pb2.CodeGeneratorRequest.FromString(sys.stdin.buffer.read()))
    if argv == ["grpc_python"]:
        sys.stdout.buffer.write(grpc_python(request).SerializeToString())
    elif not request.file_to_generate:
        empty = plugin_pb2.CodeGeneratorResponse(supported_features=_FEATURES)
        sys.stdout.buffer.write(empty.SerializeToString())
    else:
        answer = subprocess.run(argv, input=request.SerializeToString(), capture_output=True)
        sys.stderr.buffer.write(answer.stderr)
        sys.stdout.buffer.write(answer.stdout)
        sys.exit(answer.returncode)


if __name__ == "__main__":
    main(sys.argv[1:])
