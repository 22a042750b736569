"""Request ids drawn for requests that come without one."""

from __future__ import annotations

import os
import re

from hanafuda_referee.calls.caller import new_request_id


def test_request_ids_are_32_hex_digits_and_do_not_repeat() -> None:
    ids = [new_request_id() for _ in range(20_000)]
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_a_forked_process_draws_other_ids_than_its_parent() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, then out at once
        os.write(write, new_request_id().encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    assert os.waitstatus_to_exitcode(status) == 0
    # Without a fresh seed the child would repeat what the parent draws next.
    assert re.fullmatch(r"[0-9a-f]{32}", child)
    assert child != new_request_id()
