"""The writers of answers: messages written as canonical proto3 JSON, fast.

:mod:`.proto_json` writes a message (or composes one from field values, some already written)
as the text ``json_format`` would give, several times faster, and reads the simple requests of
the HTTP transport; :mod:`.forms` names the forms an answer is written in (JSON text, or the
message itself) so that code composing answers from kept parts is written once for both.

May import: the generated ``hanafuda.v1`` messages and protobuf. Nothing else of the package:
the writers know message descriptors, not games.
"""
