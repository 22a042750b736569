"""The ``google.api.field_behavior`` marks of the contract's fields, read from the descriptors.

The proto files mark the fields a request must set (``REQUIRED``) and the fields only the server
sets (``OUTPUT_ONLY``); the OpenAPI document turns those marks into ``required`` lists and
``readOnly`` keywords. Reading them from the descriptors, rather than keeping a list here, is what
keeps the document from drifting from the contract.

>>> from hanafuda.v1 import service_pb2
>>> [f.name for f in required_fields(service_pb2.CreateGameRequest.DESCRIPTOR)]
['kind', 'players']
"""

from __future__ import annotations

from google.api import field_behavior_pb2  # type: ignore[import-untyped]
from google.protobuf.descriptor import Descriptor, FieldDescriptor

__all__ = ["is_output_only", "is_required", "required_fields"]


def _marks(field: FieldDescriptor) -> frozenset[int]:
    return frozenset(field.GetOptions().Extensions[field_behavior_pb2.field_behavior])


def is_required(field: FieldDescriptor) -> bool:
    """Whether the contract marks ``field`` ``REQUIRED``: a request without it is refused."""
    return field_behavior_pb2.REQUIRED in _marks(field)


def is_output_only(field: FieldDescriptor) -> bool:
    """Whether the contract marks ``field`` ``OUTPUT_ONLY``: set by the server, ignored in a
    request."""
    return field_behavior_pb2.OUTPUT_ONLY in _marks(field)


def required_fields(descriptor: Descriptor) -> list[FieldDescriptor]:
    """The ``REQUIRED`` fields of a message, in declaration order."""
    return [field for field in descriptor.fields if is_required(field)]
