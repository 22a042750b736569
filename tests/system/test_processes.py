"""The harness itself: a server process starts, answers on both ports, logs JSON, stops cleanly."""

from __future__ import annotations

import grpc
import httpx
from hanafuda.v1 import service_pb2, service_pb2_grpc

from .processes import RefereeProcess


def test_a_process_serves_both_transports_and_stops_on_sigterm(referee: RefereeProcess) -> None:
    presets = httpx.get(f"{referee.http_url}/v1/rules/presets", timeout=5).json()
    with grpc.insecure_channel(referee.grpc_target) as channel:
        stub = service_pb2_grpc.RefereeServiceStub(channel)
        answer = stub.ListPresets(service_pb2.ListPresetsRequest(), timeout=5)
    assert len(presets["presets"]) == len(answer.presets) > 0
    started = {r.get("event"): r for r in referee.log_records()}
    # The fast paths the service counts on (both are dependencies): uvloop and httptools.
    assert started["grpc listening"]["event_loop"] == "uvloop"
    assert started["http listening"]["parser"] == "httptools"
    assert referee.stop() == 0
    assert any(r.get("event") == "stopped" for r in referee.log_records())
