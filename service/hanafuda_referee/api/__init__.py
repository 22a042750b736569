"""The service's application layer: the referee's methods over the protobuf messages, shared by
the gRPC and HTTP transports."""
