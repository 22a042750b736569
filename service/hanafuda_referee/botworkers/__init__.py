"""Bot workers: the processes that decide the bot seats' moves, off the request path (PLAY.md,
"Bots think off the request path"; the path of a turn is drawn in ``docs/architecture.md``).

A commit that hands the turn to a bot seat pushes the turn, (game id, store version), on the
store's bot queue. A worker takes turns from it (:mod:`.consumer`), has the hosting layer load the
game and hand it the seat's view (:meth:`~hanafuda_referee.hosting.games.HostedGames
.play_bot_turn`), decides with the bot library within a CPU-time budget (:mod:`.deciding`), and
the move is committed through the same compare-and-set as a seat's, as ``bot:<version>``; then it
finishes the turn. A turn whose game moved on is finished unplayed; a turn a worker took and never
finished (it was killed) is handed to another worker once :data:`.consumer.RECLAIM_AFTER_MS` has
passed. The queue also carries hints and reviews (an entry with a job,
:mod:`hanafuda_referee.hosting.advice`): the same workers search them where they search a bot's
move (:func:`.deciding.advise_work`) and store the answer.

Where workers run:

- ``hanafuda-referee bot-workers`` (:mod:`.command`): workers alone against Redis, in
  ``--processes`` processes, with ``/healthz``, ``/readyz`` and ``/metrics`` on
  ``--health-port``;
- ``serve`` with ``--workers`` above 1: the supervisor starts ``--bot-workers`` such processes
  once (:mod:`.processes`), beside the serving ones;
- ``serve`` as one process (either store): the serving process takes the turns of its store's
  queue itself and sends only the search to a pool of ``--bot-workers`` processes
  (:mod:`.embedded`); it loads and commits (about a millisecond), the search runs elsewhere.

Every worker process runs at a lower CPU priority than the serving processes.

This layer calls the hosting layer, the bots and the store; nothing below it imports it (the
``import-linter`` layers contract in pyproject.toml).
"""
