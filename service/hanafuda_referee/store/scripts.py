"""The Lua scripts that make each Redis write one atomic round trip, and how they are run.

Redis runs a script without interleaving any other command, so a commit's checks (answered
request id, expected version) and its writes (record, log entry, answer, expiries, the watchers'
notification) happen together or not at all: a crash or a lost connection can never leave half a
move. Every key a script touches is passed in KEYS and shares the game's hash tag, which a Redis
Cluster requires; so does the sharded channel a script publishes on (SPUBLISH, Redis 7.0 or
later).

Scripts are run with EVALSHA (only the 40-character digest travels); a server that does not have
the script cached (restart, failover, new cluster node) answers NOSCRIPT, and the runner then
sends the source once with EVAL, which both runs and caches it. No SCRIPT LOAD round trip is
needed up front, and a cluster needs no "load on every node" step. A pipeline of runs, plain
commands among them (:func:`run_pipeline`), does the same per run: those answered NOSCRIPT, which
therefore did not run, go again with EVAL in a second pipeline.

Time: the answer expiry uses the server clock (``TIME``), allowed in scripts since Redis 5 with
effect replication (the default from Redis 7), so all service replicas agree on expiry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from redis.exceptions import NoScriptError

__all__ = [
    "BOT_QUEUE_STATS",
    "COMMIT",
    "CREATE",
    "DELETE",
    "FINISH_BOT_TURN",
    "HAND_BACK_BOT_TURNS",
    "PUSH_BOT_TURN",
    "READ_EVENTS",
    "TAKE_BOT_TURNS",
    "Command",
    "LuaScript",
    "PipelineRunner",
    "ScriptCall",
    "ScriptRunner",
    "run_pipeline",
]

#: One command as its arguments, the name first.
Command = tuple[bytes | str | int, ...]


class ScriptRunner(Protocol):
    """What a script needs from a client: ``redis.asyncio.Redis`` and ``RedisCluster`` fit."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Send one command and return its parsed reply."""
        ...


class PipelineRunner(Protocol):
    """What :func:`run_pipeline` needs: :class:`~.redis_clients.SingleClients` fits."""

    async def pipeline(self, commands: Sequence[Command]) -> list[Any]:
        """Send ``commands`` together, without a transaction, and return every reply in order;
        an error reply comes back as its exception, a connection failure raises."""
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
        call = ScriptCall(self, keys, args)
        try:
            return await client.execute_command(*call.command())
        except NoScriptError:
            return await client.execute_command(*call.command(source=True))


@dataclass(frozen=True, slots=True)
class ScriptCall:
    """One run of ``script`` on ``keys`` with ``args``, as a call of :func:`run_pipeline`."""

    script: LuaScript
    keys: Sequence[str]
    args: Sequence[bytes | str | int]

    def command(self, *, source: bool = False) -> Command:
        """The EVALSHA command of this run, or its EVAL command with ``source``."""
        script = self.script
        head = ("EVAL", script.source) if source else ("EVALSHA", script.sha)
        return (*head, len(self.keys), *self.keys, *self.args)


async def run_pipeline(runner: PipelineRunner, calls: Sequence[ScriptCall | Command]) -> list[Any]:
    """Send ``calls`` in one pipeline, each script run its own atomic run and each plain
    command as it is; return the raw replies in order, an error reply as its exception. Raises
    if the first pipeline fails.

    A script run answered NOSCRIPT did not run: those go again with EVAL, in a second pipeline
    whose failure fails them alone (the others have their replies)."""
    replies = await runner.pipeline(
        [call.command() if isinstance(call, ScriptCall) else call for call in calls]
    )
    missing = [
        (n, call)
        for n, call in enumerate(calls)
        if isinstance(call, ScriptCall) and isinstance(replies[n], NoScriptError)
    ]
    if missing:
        try:
            again = await runner.pipeline([run.command(source=True) for _, run in missing])
        except Exception as error:
            again = [error] * len(missing)
        for (n, _), reply in zip(missing, again, strict=True):
            replies[n] = reply
    return replies


#: KEYS: game, answers. ARGV: meta, state, packed events, ttl ms (idle or finished).
#: Returns 1 if created, 0 if a game with this id exists. Answers left by an expired game with the
#: same id (they never outlive its list by more than a few ms) are removed too.
#:
#: A server at its ``maxmemory`` refuses a script's first write when that command may take memory
#: (an OOM error, which the store raises as unavailable), but lets every later write of a script
#: that has written already through. So the RPUSH comes first, as the LSET does in COMMIT: a
#: script writing the DEL first (which takes no memory) went on to store every new game past the
#: limit, while the moves of the games in progress were refused.
CREATE = LuaScript(
    "create",
    """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('RPUSH', KEYS[1], '0:' .. string.len(ARGV[1]) .. ':' .. ARGV[1] .. ARGV[2], ARGV[3])
redis.call('DEL', KEYS[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
""",
)

#: KEYS: game, answers. ARGV: expected version, new state, packed events, request id digest ('' for
#: none), answer, ttl ms (idle or finished), answer ttl ms, channel.
#: Returns {0} no such game, {1, version} committed, {2, answer, version} duplicate,
#: {3, version, state} conflict.
#: Answers are kept in one hash per game, the answered version and expiry time in front of the
#: answer (Redis 7.0 has no per-field expiry); expired answers are ignored on lookup. They are
#: pruned whenever the hash reaches a multiple of 16 fields, so a game that keeps moving holds the
#: answers of the last answer ttl plus at most 15 expired ones, at an amortised cost of one field
#: visited per answer. The hash itself gets the answer ttl at each new answer: every older answer
#: expires before the newest, so the whole hash can go when the newest does, and a game whose moves
#: carry request ids does not keep its last answer for the whole idle time.
COMMIT = LuaScript(
    "commit",
    """
local record = redis.call('LINDEX', KEYS[1], 0)
if not record then return {0} end
local digest = ARGV[4]
local now = nil
local function now_ms()
  if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return now
end
local function parse(stored)
  local expires, version, answer = string.match(stored, '^(%d+):(%d+):()')
  return tonumber(expires), tonumber(version), answer
end
if digest ~= '' then
  local stored = redis.call('HGET', KEYS[2], digest)
  if stored then
    local expires, version, answer = parse(stored)
    if expires > now_ms() then return {2, string.sub(stored, answer), version} end
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
redis.call('LSET', KEYS[1], 0, new_record)
redis.call('RPUSH', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
if digest ~= '' then
  local size = redis.call('HLEN', KEYS[2])
  if size > 0 and size % 16 == 0 then
    local fields = redis.call('HGETALL', KEYS[2])
    for i = 1, #fields, 2 do
      if parse(fields[i + 1]) <= now_ms() then redis.call('HDEL', KEYS[2], fields[i]) end
    end
  end
  local kept = string.format('%d:%d:', now_ms() + tonumber(ARGV[7]), new_version)
  redis.call('HSET', KEYS[2], digest, kept .. ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
end
redis.call('SPUBLISH', ARGV[8], new_version)
return {1, new_version}
""",
)

#: KEYS: bucket. ARGV: tokens added per millisecond, bucket size.
#: Returns 0 when a token was taken, else the milliseconds until one will be there (nothing taken).
#: A token bucket kept as a hash {t: tokens left, at: Redis time ms of that count}; a bucket
#: nobody drew from for the time it takes to fill up again expires, as a full one would read.
TAKE_TOKEN = LuaScript(
    "take_token",
    """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local size = tonumber(ARGV[2])
local kept = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(kept[1]) or size
local at = tonumber(kept[2]) or now
tokens = math.min(size, tokens + math.max(0, now - at) * rate)
if tokens < 1 then
  return math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 't', tostring(tokens - 1), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(size / rate) + 1000)
return 0
""",
)

#: KEYS: the index of deadlines. ARGV: game id, the deadline seen, the new deadline ('' to
#: remove). Replaces the entry only if it still holds the deadline seen.
SETTLE_DEADLINE = LuaScript(
    "settle_deadline",
    """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
""",
)

#: KEYS: game. ARGV: first index, last index (of the list: a version's index is version + 1).
#: Returns nil if the game does not exist, else the LRANGE reply. One script instead of EXISTS
#: plus LRANGE keeps "unknown game" distinct from "no new events" in one round trip.
READ_EVENTS = LuaScript(
    "read_events",
    """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('LRANGE', KEYS[1], ARGV[1], ARGV[2])
""",
)

#: KEYS: game, answers. ARGV: channel.
#: Removes the game and tells its watchers (who then find it gone); returns 1 if it existed.
DELETE = LuaScript(
    "delete",
    """
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2])
if existed == 1 then redis.call('SPUBLISH', ARGV[1], '') end
return existed
""",
)


# -- the bot queue: one stream per partition, read by one consumer group --------------------------

#: KEYS: the partition's stream. ARGV: game id, version, the partition's wake-up channel ('' for
#: none), the job ('' or absent: a bot seat's turn). Adds the turn as an entry {g: game id, v:
#: version}, with {j: job} when it has one; a Redis Cluster's workers wait on
#: the sharded channel (a single server's block on the streams themselves).
PUSH_BOT_TURN = LuaScript(
    "push_bot_turn",
    """
local id
if ARGV[4] ~= nil and ARGV[4] ~= '' then
  id = redis.call('XADD', KEYS[1], '*', 'g', ARGV[1], 'v', ARGV[2], 'j', ARGV[4])
else
  id = redis.call('XADD', KEYS[1], '*', 'g', ARGV[1], 'v', ARGV[2])
end
if ARGV[3] ~= '' then redis.call('SPUBLISH', ARGV[3], id) end
return id
""",
)

#: KEYS: partition streams (all of them on a single server; one on a cluster, as its keys must
#: share a slot). ARGV: group, consumer, count, reclaim after (ms), the first partition to look
#: at (0-based; the caller turns it, for fairness among equals).
#: Returns up to count turns, each {partition (0-based), entry id, game id, version, deliveries,
#: job (nil for a turn, so that the reply's array ends before it)}:
#: first the entries another consumer was handed at least ``reclaim after`` ago (XAUTOCLAIM, which
#: counts one more delivery), then new entries, oldest first across the partitions (their ids
#: are the server's clock): their ids are read with XRANGE after the group's last delivered id,
#: merged, and then delivered with XREADGROUP, which in a script hands out exactly those.
#: Creates the group (and the stream) of a partition that has none, at id 0: turns pushed before
#: any worker asked, or after a restart lost the group, are all delivered.
TAKE_BOT_TURNS = LuaScript(
    "take_bot_turns",
    """
local group, consumer = ARGV[1], ARGV[2]
local want = tonumber(ARGV[3])
local reclaim = ARGV[4]
local first = tonumber(ARGV[5])
local n = #KEYS
local taken = {}
local function field(flat, name)
  for i = 1, #flat, 2 do
    if flat[i] == name then return flat[i + 1] end
  end
  return false
end
local function older(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, bm = tonumber(am), tonumber(bm)
  if am ~= bm then return am < bm end
  return tonumber(as) < tonumber(bs)
end
local last = {}
for k = 1, n do
  local ok, groups = pcall(redis.call, 'XINFO', 'GROUPS', KEYS[k])
  if ok then
    for _, g in ipairs(groups) do
      if field(g, 'name') == group then last[k] = field(g, 'last-delivered-id') end
    end
  end
  if not last[k] then
    redis.call('XGROUP', 'CREATE', KEYS[k], group, '0', 'MKSTREAM')
    last[k] = '0-0'
  end
end
for i = 0, n - 1 do
  local k = (first + i) % n + 1
  local cursor = '0-0'
  while #taken < want do
    local reply = redis.call('XAUTOCLAIM', KEYS[k], group, consumer, reclaim, cursor,
      'COUNT', want - #taken)
    for _, entry in ipairs(reply[2]) do
      if entry[2] then
        local pending = redis.call('XPENDING', KEYS[k], group, entry[1], entry[1], 1)
        taken[#taken + 1] = {k - 1, entry[1], field(entry[2], 'g'), field(entry[2], 'v'),
          pending[1][4], field(entry[2], 'j')}
      end
    end
    cursor = reply[1]
    if cursor == '0-0' then break end
  end
end
local fresh = want - #taken
if fresh <= 0 then return taken end
local peeked, at, chosen = {}, {}, {}
for k = 1, n do
  peeked[k] = redis.call('XRANGE', KEYS[k], '(' .. last[k], '+', 'COUNT', fresh)
  at[k] = 1
  chosen[k] = 0
end
for _ = 1, fresh do
  local best = nil
  for i = 0, n - 1 do
    local k = (first + i) % n + 1
    local entry = peeked[k][at[k]]
    if entry and (best == nil or older(entry[1], peeked[best][at[best]][1])) then best = k end
  end
  if best == nil then break end
  local entry = peeked[best][at[best]]
  taken[#taken + 1] = {best - 1, entry[1], field(entry[2], 'g'), field(entry[2], 'v'), 1,
    field(entry[2], 'j')}
  at[best] = at[best] + 1
  chosen[best] = chosen[best] + 1
end
for k = 1, n do
  if chosen[k] > 0 then
    redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', chosen[k], 'STREAMS', KEYS[k], '>')
  end
end
return taken
""",
)

#: KEYS: a partition's stream. ARGV: group, consumer, then entry ids this consumer was handed
#: and will not decide. Makes them look stale (idle for a very long time, never delivered), so
#: the next take, by any consumer, reclaims them at once with their first delivery.
HAND_BACK_BOT_TURNS = LuaScript(
    "hand_back_bot_turns",
    """
local ids = {}
for i = 3, #ARGV do ids[#ids + 1] = ARGV[i] end
return redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, unpack(ids),
  'IDLE', 100000000000, 'RETRYCOUNT', 0, 'JUSTID')
""",
)

#: KEYS: a partition's stream. ARGV: group, entry id. Acknowledges and deletes the entry, so a
#: stream holds only the turns waiting or being decided. A missing group (lost in a restart) is
#: no reason to keep the entry.
FINISH_BOT_TURN = LuaScript(
    "finish_bot_turn",
    """
pcall(redis.call, 'XACK', KEYS[1], ARGV[1], ARGV[2])
return redis.call('XDEL', KEYS[1], ARGV[2])
""",
)

#: KEYS: partition streams. Returns per stream {length, its first entry id or ''}.
BOT_QUEUE_STATS = LuaScript(
    "bot_queue_stats",
    """
local stats = {}
for k = 1, #KEYS do
  local head = redis.call('XRANGE', KEYS[k], '-', '+', 'COUNT', 1)
  stats[k] = {redis.call('XLEN', KEYS[k]), head[1] and head[1][1] or ''}
end
return stats
""",
)
