"""The Lua scripts that make each Redis write one atomic round trip, and how they are run.

Redis runs a script without interleaving any other command, so a commit's checks (answered
request id, expected version) and its writes (record, stream entry, answer, expiries) happen
together or not at all: a crash or a lost connection can never leave half a move. Every key a
script touches is passed in KEYS and shares the game's hash tag, which a Redis Cluster requires.

Scripts are run with EVALSHA (only the 40-character digest travels); a server that does not have
the script cached (restart, failover, new cluster node) answers NOSCRIPT, and the runner then
sends the source once with EVAL, which both runs and caches it. No SCRIPT LOAD round trip is
needed up front, and a cluster needs no "load on every node" step.

Time: the answer expiry uses the server clock (``TIME``), allowed in scripts since Redis 5 with
effect replication (the default from Redis 7), so all service replicas agree on expiry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol

from redis.exceptions import NoScriptError

__all__ = ["COMMIT", "CREATE", "READ_EVENTS", "LuaScript", "ScriptRunner"]


class ScriptRunner(Protocol):
    """What a script needs from a client: ``redis.asyncio.Redis`` and ``RedisCluster`` fit."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Send one command and return its parsed reply."""
        ...


class LuaScript:
    """A Lua script identified by its SHA1 digest, run with EVALSHA and an EVAL fallback."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self.sha = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()

    async def run(
        self, client: ScriptRunner, keys: Sequence[str], args: Sequence[bytes | str | int]
    ) -> Any:
        """Run the script on the node that owns ``keys`` and return its raw reply."""
        try:
            return await client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await client.execute_command("EVAL", self.source, len(keys), *keys, *args)


#: KEYS: record, events, answers. ARGV: meta, state, packed events, idle ttl ms.
#: Returns 1 if created, 0 if a game with this id exists. Leftovers of an expired game with the
#: same id (a stream or answers that outlived the record by a few ms) are removed first, so the
#: new game's log starts at version 0.
CREATE = LuaScript(
    "create",
    """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('SET', KEYS[1], '0:' .. string.len(ARGV[1]) .. ':' .. ARGV[1] .. ARGV[2], 'PX', ARGV[4])
redis.call('XADD', KEYS[2], '0-1', 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
""",
)

#: KEYS: record, events, answers. ARGV: expected version, new state, packed events, request id
#: ('' for none), answer, idle ttl ms, answer ttl ms.
#: Returns {0} no such game, {1, version} committed, {2, answer} duplicate,
#: {3, version, state} conflict.
#: Answers are kept in one hash per game with their expiry time in front of the value (Redis 7.0
#: has no per-field expiry); expired answers are ignored on lookup and pruned whenever a new answer
#: is stored, so the hash holds at most the answers of the last answer-ttl. The hash itself gets
#: the answer ttl at each new answer: every older answer expires before the newest, so the whole
#: hash can go when the newest does, and a game whose moves carry request ids does not keep its
#: last answer for the whole idle time. (Its ttl is thus the answer ttl, not the game's.)
COMMIT = LuaScript(
    "commit",
    """
local record = redis.call('GET', KEYS[1])
if not record then return {0} end
local request_id = ARGV[4]
local now = nil
local function now_ms()
  if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return now
end
local function expiry(stored)
  local sep = string.find(stored, ':', 1, true)
  return tonumber(string.sub(stored, 1, sep - 1)), sep
end
if request_id ~= '' then
  local stored = redis.call('HGET', KEYS[3], request_id)
  if stored then
    local expires, sep = expiry(stored)
    if expires > now_ms() then return {2, string.sub(stored, sep + 1)} end
  end
end
local version, meta_len, body = string.match(record, '^(%d+):(%d+):()')
version = tonumber(version)
meta_len = tonumber(meta_len)
if version ~= tonumber(ARGV[1]) then
  return {3, version, string.sub(record, body + meta_len)}
end
local new_version = version + 1
local new_record = string.format('%d:%d:', new_version, meta_len)
  .. string.sub(record, body, body + meta_len - 1) .. ARGV[2]
redis.call('SET', KEYS[1], new_record, 'PX', ARGV[6])
redis.call('XADD', KEYS[2], string.format('%d-1', new_version), 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
if request_id ~= '' then
  local fields = redis.call('HGETALL', KEYS[3])
  for i = 1, #fields, 2 do
    if expiry(fields[i + 1]) <= now_ms() then redis.call('HDEL', KEYS[3], fields[i]) end
  end
  local expires = string.format('%d:', now_ms() + tonumber(ARGV[7]))
  redis.call('HSET', KEYS[3], request_id, expires .. ARGV[5])
  redis.call('PEXPIRE', KEYS[3], ARGV[7])
end
return {1, new_version}
""",
)

#: KEYS: record, events. ARGV: first stream ID, count.
#: Returns nil if the game does not exist, else the XRANGE reply. One script instead of EXISTS
#: plus XRANGE keeps "unknown game" distinct from "no new events" in one round trip.
READ_EVENTS = LuaScript(
    "read_events",
    """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('XRANGE', KEYS[2], ARGV[1], '+', 'COUNT', ARGV[2])
""",
)
