"""Server reflection under both of its names on a real ``grpc.aio`` server: ``grpc.reflection.v1``,
which current tools (grpcurl, Postman, buf curl) ask first, and ``grpc.reflection.v1alpha``, which
older ones ask. Both must list the same services and resolve the referee's service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2  # type: ignore[import-untyped]
from hanafuda.v1 import service_pb2

from hanafuda_referee.grpc.server import SERVICE_NAME
from hanafuda_referee.hosting.referee import Referee

from .conftest import serving_grpc

V1 = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
V1ALPHA = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
#: What every listing holds: the referee, health, and reflection under both of its names.
LISTED = {
    SERVICE_NAME,
    "grpc.health.v1.Health",
    "grpc.reflection.v1alpha.ServerReflection",
    "grpc.reflection.v1.ServerReflection",
}


@pytest_asyncio.fixture
async def channel(referee: Referee) -> AsyncIterator[grpc.aio.Channel]:
    async with serving_grpc(referee) as (_, channel):
        yield channel


async def ask(channel: grpc.aio.Channel, method: str, request: Any) -> Any:
    """The one response to one reflection request over ``method``. grpcio-reflection ships
    messages for v1alpha alone; they serve for v1 too, whose messages have the same fields under
    the same numbers (only the package differs, and the package never goes on the wire)."""
    call = channel.stream_stream(
        method,
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    responses = [response async for response in call(iter([request]))]
    assert len(responses) == 1
    return responses[0]


async def test_both_versions_list_the_same_services(channel: grpc.aio.Channel) -> None:
    listings = []
    for method in (V1, V1ALPHA):
        response = await ask(
            channel, method, reflection_pb2.ServerReflectionRequest(list_services="")
        )
        assert response.WhichOneof("message_response") == "list_services_response"
        listings.append({service.name for service in response.list_services_response.service})
    v1, v1alpha = listings
    assert v1 == v1alpha == LISTED


@pytest.mark.parametrize("method", [V1, V1ALPHA])
async def test_the_referee_service_resolves_to_its_file(
    channel: grpc.aio.Channel, method: str
) -> None:
    request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME)
    response = await ask(channel, method, request)
    assert response.WhichOneof("message_response") == "file_descriptor_response"
    files = {
        proto.name: proto
        for proto in map(
            descriptor_pb2.FileDescriptorProto.FromString,
            response.file_descriptor_response.file_descriptor_proto,
        )
    }
    # The answer holds the file and what it imports: enough for a tool to build the requests.
    service_file = files[service_pb2.DESCRIPTOR.name]
    assert set(service_file.dependency) <= set(files)
    (service,) = (s for s in service_file.service if s.name == "RefereeService")
    assert f"{service_file.package}.{service.name}" == SERVICE_NAME
    expected = {m.name for m in service_pb2.DESCRIPTOR.services_by_name["RefereeService"].methods}
    assert {m.name for m in service.method} == expected


@pytest.mark.parametrize("method", [V1, V1ALPHA])
@pytest.mark.parametrize("version", ["v1", "v1alpha"])
async def test_each_reflection_service_describes_itself(
    channel: grpc.aio.Channel, method: str, version: str
) -> None:
    """Every listed service resolves (``grpcurl describe`` asks for each one): reflection's own
    two names included, each in a file of its own package with its method."""
    symbol = f"grpc.reflection.{version}.ServerReflection"
    request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol)
    response = await ask(channel, method, request)
    assert response.WhichOneof("message_response") == "file_descriptor_response"
    (proto,) = (
        p
        for p in map(
            descriptor_pb2.FileDescriptorProto.FromString,
            response.file_descriptor_response.file_descriptor_proto,
        )
        if p.package == f"grpc.reflection.{version}"
    )
    (service,) = proto.service
    assert service.name == "ServerReflection"
    (rpc,) = service.method
    assert rpc.name == "ServerReflectionInfo"
    assert rpc.input_type == f".grpc.reflection.{version}.ServerReflectionRequest"
    message_names = {m.name for m in proto.message_type}
    assert {"ServerReflectionRequest", "ServerReflectionResponse"} <= message_names
