/**
 * The generated messages, enums and service of `hanafuda.v1` (`src/gen`, from `proto/` by
 * `scripts/gen-protos`), re-exported: `GameKind`, `MoveKind`, `Card`, `GameView`,
 * `CreateGameRequestSchema`, `RefereeService`... A test checks that every generated file of the
 * package is listed here.
 */

export * from "./gen/hanafuda/v1/cards_pb.js";
export * from "./gen/hanafuda/v1/errors_pb.js";
export * from "./gen/hanafuda/v1/events_pb.js";
export * from "./gen/hanafuda/v1/game_pb.js";
export * from "./gen/hanafuda/v1/moves_pb.js";
export * from "./gen/hanafuda/v1/play_pb.js";
export * from "./gen/hanafuda/v1/rules_pb.js";
export * from "./gen/hanafuda/v1/scoring_pb.js";
export * from "./gen/hanafuda/v1/service_pb.js";
