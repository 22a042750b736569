/**
 * `@hanafuda-referee/client`: the Hanafuda Referee over HTTP/JSON, for browsers and Node 20+.
 * The gRPC client, for Node, is `@hanafuda-referee/client/grpc`.
 */

export { RefereeClient } from "./http.js";
export type { RefereeClientOptions } from "./http.js";
export { ERROR_DOMAIN, RefereeError, reasonOf } from "./errors.js";
export type { RefereeErrorInit } from "./errors.js";
export type { CallOptions, RefereeMethods } from "./methods.js";
export { newRequestId } from "./methods.js";
export { requestParts, routeOf } from "./routes.js";
export type { HttpRequestParts, HttpRoute, PathVariable } from "./routes.js";
export type { WatchOptions } from "./watch.js";
export { Code } from "@connectrpc/connect";
export * from "./messages.js";
