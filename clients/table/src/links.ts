/**
 * Where the page is: the lobby (no fragment), a seat (`#game=<id>&token=<token>`) or a spectator
 * (`#game=<id>`). The seat's token lives in the URL *fragment*, which a browser never sends to a
 * server (nor in a `Referer`): it reaches the referee only in the `Authorization` header.
 */

export interface Place {
  readonly game: string;
  /** The seat's token; `""` for a spectator. */
  readonly token: string;
}

/** The place the fragment names, or `undefined` for the lobby. */
export function placeOf(hash: string): Place | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const game = params.get("game");
  if (!game) return undefined;
  return { game, token: params.get("token") ?? "" };
}

/** The fragment of a place: `#game=g1&token=t0`. */
export function fragmentOf(place: Place): string {
  const params = new URLSearchParams({ game: place.game });
  if (place.token) params.set("token", place.token);
  return "#" + params.toString();
}

/** The full link to a place, on this page's origin and path (never with a query). */
export function linkTo(place: Place): string {
  return `${location.origin}${location.pathname}${fragmentOf(place)}`;
}
