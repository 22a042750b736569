"""Hosted games: the referee's use cases, over the game store and the rules engines.

:class:`~.referee.Referee` has one method per RPC, whatever the transport. Behind it,
:mod:`.games` creates, reads, moves and audits games kept in a store (versions, tokens,
compare-and-set, a cache), :mod:`.watching` follows them live and :mod:`.stateless` answers the
rules methods that need no game. A game kind plugs in through one :class:`~.adapter.GameAdapter`
(:mod:`.koikoi`, :mod:`.hachihachi`), registered in :mod:`.kinds`; :mod:`.convert` translates
between engine values and messages, and :mod:`.written_parts` keeps the parts answers are
composed from.

May import: the engines and the core modules, :mod:`hanafuda_referee.store`,
:mod:`hanafuda_referee.writers`, :mod:`hanafuda_referee.calls` and
:mod:`hanafuda_referee.observability`. Never a transport.
"""
