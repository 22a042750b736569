"""Watchers' wake-ups: every game channel a process follows, on one shared connection.

Each commit publishes its version on the game's sharded channel (``SPUBLISH``); a watcher only
needs to be woken by it, and then reads the log itself. A :class:`Subscriber` holds one Redis
connection and subscribes it (``SSUBSCRIBE``) to every channel its watchers follow, each channel
once however many watchers follow it, and wakes each of a channel's :class:`Subscription` on
each message. A process thus holds one such connection per Redis server (per cluster node that
owns a followed game), not one per watcher: the connection pool bounded watchers to its size
before (256 per process by default), and a server's ``maxclients`` bounds connections, not
subscriptions.

What must never happen is a lost wake-up: a commit published after a watcher's subscription took
effect must wake it. Hence :meth:`Subscription.open` returns only once the server has confirmed
the channel's subscription (at once when the channel was already confirmed, as every message
from then on reaches the new subscription). Nothing is ever silently re-established: when the
shared connection fails, every subscription on it fails (the watchers report it and resume, as
the contract says) and the next subscription opens a new connection. A subscription the server
ends on its own (the game's cluster slot moved to another node) fails alone.

The connection is driven without redis-py's ``PubSub``, which re-subscribes on reconnection (a
silent re-establishment) and reads only when asked to: here one task reads every reply and
dispatches it, while subscribing tasks write their commands. Replies to ``SSUBSCRIBE`` and
``SUNSUBSCRIBE`` (and error replies) come in the order the commands were sent, among the
messages, so each is matched with the oldest command not yet answered.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError, RedisError, ResponseError

__all__ = ["Subscriber", "Subscription"]

#: What a failed subscriber or subscription raises when it has no cause of its own.
_CLOSED = "the watchers' Redis connection was closed"


class Subscription:
    """One watcher's wake-ups from a game's channel (see the module docstring).

    A message wakes :meth:`wait`; several messages before a wait wake it once, and a message
    that came while the watcher was reading wakes its next wait at once, so none is lost.
    """

    __slots__ = ("_channel", "_error", "_subscriber", "_woken")

    def __init__(self, subscriber: Subscriber, channel: str) -> None:
        self._subscriber = subscriber
        self._channel = channel.encode()
        self._woken = asyncio.Event()
        self._error: BaseException | None = None

    @property
    def channel(self) -> bytes:
        """The channel followed."""
        return self._channel

    async def open(self) -> None:
        """Follow the channel; return once the server has confirmed its subscription."""
        await self._subscriber.add(self)

    async def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a message; True if one (or more) came. Raises the
        subscription's failure (a ``ConnectionError``) if it failed."""
        if not self._woken.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._woken.wait()
        self._raise_failure()
        if not self._woken.is_set():
            return False
        self._woken.clear()
        return True

    async def close(self) -> None:
        """Stop following the channel (the connection stays, for the other watchers)."""
        await self._subscriber.remove(self)

    def _wake(self) -> None:
        self._woken.set()

    def _fail(self, error: BaseException) -> None:
        if self._error is None:
            self._error = error
        self._woken.set()

    def _raise_failure(self) -> None:
        if self._error is not None:
            raise ConnectionError(str(self._error)) from self._error


#: A command sent and not yet answered: whether it subscribes, its channel, and for a
#: subscription the future its subscribers wait on.
_Sent = tuple[bool, bytes, asyncio.Future[None] | None]


class Subscriber:
    """The shared connection of a server's (or a cluster node's) watchers; see the module
    docstring. ``connect`` gives a new connection, ``release`` takes it back once this
    subscriber is done with it.

    A connection can die silently (a peer gone without a word, a firewall that drops idle
    connections): its watchers would then only see each commit at their periodic wake-up, and
    the subscriber would go on taking subscriptions. So a subscription that the server has not
    confirmed within ``confirm_timeout`` seconds fails the whole subscriber, and so does a
    ``PING`` (sent after ``keepalive`` seconds without a reply or a message, which also keeps the
    connection in use) left unanswered for another ``keepalive``.

    ``moved`` is told the channels whose subscription the server refused or ended, as it does
    when the game's cluster slot is (or has gone) elsewhere."""

    def __init__(
        self,
        connect: Callable[[], Awaitable[AbstractConnection]],
        release: Callable[[AbstractConnection], Awaitable[None]],
        confirm_timeout: float,
        keepalive: float,
        moved: Callable[[bytes], None] | None = None,
    ) -> None:
        self._connect = connect
        self._release = release
        self._moved = moved
        self._confirm_timeout = confirm_timeout
        self._keepalive = keepalive
        self._connection: AbstractConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        #: The tasks sending commands (the loop keeps only weak references to tasks).
        self._tasks: set[asyncio.Task[None]] = set()
        self._writing = asyncio.Lock()
        #: channel -> its subscriptions (a channel is subscribed while it has any).
        self._followers: dict[bytes, set[Subscription]] = {}
        #: channel -> the confirmation its subscriptions wait for, while it is pending.
        self._pending: dict[bytes, asyncio.Future[None]] = {}
        #: Channels whose subscription the server confirmed and that are still followed.
        self._confirmed: set[bytes] = set()
        self._sent: collections.deque[_Sent] = collections.deque()
        #: Why this subscriber stopped, once it has: it takes no more subscriptions.
        self.failure: BaseException | None = None

    async def add(self, subscription: Subscription) -> None:
        """Subscribe ``subscription``'s channel if no other subscription follows it yet, and
        wait for the server's confirmation (shared by every subscription of that channel)."""
        self._check_alive()
        channel = subscription.channel
        followers = self._followers.get(channel)
        if followers is None:
            followers = self._followers[channel] = set()
        followers.add(subscription)
        if channel in self._confirmed:
            return
        confirmed = self._pending.get(channel)
        if confirmed is None:
            confirmed = self._pending[channel] = asyncio.get_running_loop().create_future()
            self._command(True, channel, confirmed)
        # Shielded: a watcher that gives up must not cancel the confirmation others wait on.
        await asyncio.shield(confirmed)
        subscription._raise_failure()

    async def remove(self, subscription: Subscription) -> None:
        """Forget ``subscription``; unsubscribe its channel when nobody follows it any more."""
        channel = subscription.channel
        followers = self._followers.get(channel)
        if followers is None or subscription not in followers:
            return
        followers.discard(subscription)
        if followers:
            return
        del self._followers[channel]
        self._confirmed.discard(channel)
        # A new subscription of the channel must wait for a confirmation of its own, sent after
        # this unsubscription, not for one the unsubscription will undo.
        self._pending.pop(channel, None)
        if self.failure is None:
            self._command(False, channel, None)

    async def close(self) -> None:
        """Fail every subscription and give the connection back."""
        self._stop(ConnectionError(_CLOSED))
        tasks = [task for task in (self._reader, *self._tasks) if task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await task
        await self._give_back()

    # -- the connection --------------------------------------------------------------------------

    def _check_alive(self) -> None:
        if self.failure is not None:
            raise ConnectionError(str(self.failure)) from self.failure

    def _command(
        self, subscribe: bool, channel: bytes, confirmed: asyncio.Future[None] | None
    ) -> None:
        name = b"SSUBSCRIBE" if subscribe else b"SUNSUBSCRIBE"
        self._spawn(self._send((name, channel), (subscribe, channel, confirmed)))

    def _spawn(self, sending: Coroutine[Any, Any, None]) -> None:
        """Send a command in a task of its own: a caller that gives up must not cut it short,
        as a command half written spoils the connection for every subscription."""
        task = asyncio.get_running_loop().create_task(sending)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, command: tuple[bytes, ...], sent: _Sent | None) -> None:
        """Write ``command``; ``sent``: what its reply will answer (none for a PING, whose
        reply only shows the connection alive)."""
        try:
            # One command at a time, so the commands go in the order they are listed in _sent.
            async with self._writing:
                if self._connection is None and self.failure is None:
                    opened = await self._connect()
                    self._connection = opened
                    self._reader = asyncio.get_running_loop().create_task(self._read(opened))
                connection = self._connection
                if self.failure is not None or connection is None:
                    return
                if sent is not None:
                    self._sent.append(sent)
                # No health check: it would read a reply, and only the reader reads.
                await connection.send_packed_command(
                    connection.pack_command(*command), check_health=False
                )
        except asyncio.CancelledError:
            self._stop(ConnectionError(_CLOSED))
            raise
        except Exception as error:
            # Unreachable server, or a command perhaps half written: nothing more can be trusted
            # on this connection, and its reader may be waiting for a reply that will not come.
            self._stop(ConnectionError(f"cannot subscribe: {error!r}"))
            return
        confirmed = None if sent is None else sent[2]
        if confirmed is not None:
            asyncio.get_running_loop().call_later(
                self._confirm_timeout, self._check_confirmed, confirmed
            )

    def _check_confirmed(self, confirmed: asyncio.Future[None]) -> None:
        if not confirmed.done():
            self._stop(ConnectionError("Redis did not confirm a subscription in time"))

    async def _read(self, connection: AbstractConnection) -> None:
        """Read and dispatch every reply until the connection fails or this subscriber stops."""
        pinged = False
        try:
            while self.failure is None:
                try:
                    reply = await connection.read_response(timeout=self._keepalive)
                except ResponseError as error:  # answers the oldest command
                    self._refused(error)
                    continue
                if reply is None:  # quiet for a while: is the connection still there?
                    if pinged:
                        raise ConnectionError("Redis did not answer a PING in time")
                    pinged = True
                    self._spawn(self._send((b"PING",), None))
                    continue
                pinged = False
                self._dispatch(reply)
        except BaseException as error:
            if self.failure is None:
                self._stop(ConnectionError(f"the watchers' connection failed: {error!r}"))
            if not isinstance(error, (Exception, asyncio.CancelledError)):
                raise
        finally:
            await self._give_back()

    def _dispatch(self, reply: object) -> None:
        if not isinstance(reply, list) or len(reply) < 2:
            return
        kind, channel = reply[0], reply[1]
        if kind == b"smessage":
            for subscription in self._followers.get(channel, ()):
                subscription._wake()
        elif kind == b"ssubscribe":
            self._answered(True, channel)
        elif kind == b"sunsubscribe" and not self._answered(False, channel):
            # Not an answer to this process: the server ended the subscription (the slot moved
            # to another node). Its watchers fail and resume through the new node.
            self._drop(channel, ConnectionError("the server ended the game's subscription"))
            if self._moved is not None:
                self._moved(channel)

    def _answered(self, subscribe: bool, channel: bytes) -> bool:
        """Match a confirmation with the oldest command sent; False if it answers none."""
        if not self._sent:
            return False
        sent_subscribe, sent_channel, confirmed = self._sent[0]
        if sent_subscribe != subscribe or sent_channel != channel:
            return False
        self._sent.popleft()
        if confirmed is not None:
            if self._pending.get(channel) is confirmed:
                del self._pending[channel]
                self._confirmed.add(channel)
            if not confirmed.done():
                confirmed.set_result(None)
        return True

    def _refused(self, error: ResponseError) -> None:
        """An error reply (e.g. MOVED: the game's slot is on another node) to the oldest
        command: a refused subscription fails its subscriptions alone."""
        if not self._sent:
            return
        _, channel, confirmed = self._sent.popleft()
        if confirmed is None:
            return
        failure = ConnectionError(f"the server refused the game's subscription: {error}")
        if self._moved is not None:
            self._moved(channel)
        if self._pending.get(channel) is confirmed:
            del self._pending[channel]
            self._drop(channel, failure)
        if not confirmed.done():
            confirmed.set_result(None)

    def _drop(self, channel: bytes, error: BaseException) -> None:
        self._confirmed.discard(channel)
        for subscription in self._followers.pop(channel, ()):
            subscription._fail(error)

    def _stop(self, error: BaseException) -> None:
        """Fail this subscriber and every subscription on it (once)."""
        if self.failure is not None:
            return
        self.failure = error
        reader = self._reader
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()  # it gives the connection back
        for channel in list(self._followers):
            self._drop(channel, error)
        waiting = [*self._pending.values(), *(sent[2] for sent in self._sent)]
        self._pending.clear()
        self._sent.clear()
        for confirmed in waiting:
            if confirmed is not None and not confirmed.done():
                confirmed.set_result(None)

    async def _give_back(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(RedisError, OSError):
                await connection.disconnect(nowait=True)
            await self._release(connection)
