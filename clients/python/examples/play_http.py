"""Play a hosted game to its end over the HTTP/JSON API, each seat taking its first legal move.

Usage: python3 play_http.py BASE_URL GAME_ID TOKEN [TOKEN ...]  (the tokens in seat order: two
for Koi-Koi, three for Hachi-Hachi). Needs only Python's standard library.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from typing import Any


def call(base: str, method: str, path: str, token: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base + path,
        method=method,
        data=data,
        headers={"Authorization": f"Bearer {token}", "content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def main(base: str, game: str, tokens: list[str]) -> None:
    while True:
        views = [call(base, "GET", f"/v1/games/{game}", t)["view"] for t in tokens]
        if views[0]["status"] != "GAME_STATUS_IN_PROGRESS":
            print(views[0]["status"], views[0].get("lastResult"))
            return
        seat = next(i for i, v in enumerate(views) if v["legalMoves"])
        move = views[seat]["legalMoves"][0]
        sent = {"move": move, "expectedVersion": views[seat]["version"]}
        answer = call(base, "POST", f"/v1/games/{game}/moves", tokens[seat], sent)
        print(f"seat {seat}: {move['kind']} {move.get('card', '')} -> version {answer['version']}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
