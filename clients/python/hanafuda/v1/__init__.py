"""Generated from proto/hanafuda/v1 by scripts/gen-protos. Do not edit."""
