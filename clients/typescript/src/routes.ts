/**
 * The HTTP/JSON route of each RPC, read at run time from its `google.api.http` option in the
 * generated descriptors (the referee's HTTP transport is built from the same options), and the
 * HTTP request that carries a given request message along it: path variables, query parameters
 * and body, in proto3 canonical JSON.
 *
 * ```ts
 * const route = routeOf(RefereeService.method.getGame);
 * route.verb; // "GET"
 * route.template; // "/v1/games/{game}"
 * ```
 */

import { create, getOption, toJson } from "@bufbuild/protobuf";
import type { DescField, DescMessage, DescMethod, JsonObject, JsonValue, MessageInitShape } from "@bufbuild/protobuf";
import { http } from "./gen/google/api/annotations_pb.js";

/** One RPC's HTTP route. */
export interface HttpRoute {
  /** The method it serves. */
  readonly method: DescMethod;
  /** `GET`, `POST`, ... */
  readonly verb: string;
  /** The path template, e.g. `/v1/games/{game}/moves`. */
  readonly template: string;
  /** `""`: no body (the fields not in the path are query parameters); `"*"`: the whole request;
   * else the name of the request field that is the body. */
  readonly body: string;
  /** `""`: the response body is the whole response; else the name of the response field it is. */
  readonly responseBody: string;
  /** The template's variables: each field path (its steps' fields) and whether it is `**`. */
  readonly variables: readonly PathVariable[];
}

/** A variable of a path template: `{game}`, `{a.b=*}`, `{name=**}`. */
export interface PathVariable {
  /** The fields from the request message down to the bound one. */
  readonly fields: readonly DescField[];
  /** `**`: the value may hold `/`, which is then not escaped. */
  readonly rest: boolean;
}

const VERBS = ["get", "put", "post", "delete", "patch"] as const;
const VARIABLE = /^\{([A-Za-z_][A-Za-z0-9_.]*)(?:=(\*\*?))?\}$/;

const routes = new WeakMap<DescMethod, HttpRoute>();

/**
 * The route of `method` from its `google.api.http` rule (the primary binding; additional bindings
 * are other paths to the same method). Throws for a method without one, or a client-streaming
 * method: HTTP/JSON cannot carry it.
 */
export function routeOf(method: DescMethod): HttpRoute {
  const known = routes.get(method);
  if (known !== undefined) {
    return known;
  }
  if (method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming") {
    throw new Error(`${method.parent.typeName}.${method.name}: no HTTP/JSON mapping for client streaming`);
  }
  const rule = getOption(method, http);
  let verb: string;
  let template: string;
  const pattern = rule.pattern;
  if (pattern.case === undefined) {
    throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http option`);
  } else if (pattern.case === "custom") {
    verb = pattern.value.kind.toUpperCase();
    template = pattern.value.path;
  } else if ((VERBS as readonly string[]).includes(pattern.case)) {
    verb = pattern.case.toUpperCase();
    template = pattern.value;
  } else {
    throw new Error(`${method.name}: unknown HTTP rule pattern ${String(pattern.case)}`);
  }
  const route: HttpRoute = {
    method,
    verb,
    template,
    body: rule.body,
    responseBody: rule.responseBody,
    variables: parseTemplate(method.input, template),
  };
  routes.set(method, route);
  return route;
}

function parseTemplate(input: DescMessage, template: string): PathVariable[] {
  if (!template.startsWith("/")) {
    throw new Error(`path template ${template} does not start with /`);
  }
  const variables: PathVariable[] = [];
  for (const segment of template.slice(1).split("/")) {
    const match = VARIABLE.exec(segment);
    if (match === null) {
      if (segment.includes("{") || segment.includes("}")) {
        throw new Error(`unsupported path template segment ${segment} in ${template}`);
      }
      continue;
    }
    variables.push({ fields: resolveFieldPath(input, match[1] ?? ""), rest: match[2] === "**" });
  }
  return variables;
}

/** The fields a dotted path of proto field names walks through, from `message`. */
function resolveFieldPath(message: DescMessage, path: string): DescField[] {
  const fields: DescField[] = [];
  let current: DescMessage | undefined = message;
  for (const step of path.split(".")) {
    const field: DescField | undefined = current?.fields.find((each) => each.name === step);
    if (field === undefined) {
      throw new Error(`${message.typeName} has no field path ${path}`);
    }
    fields.push(field);
    current = field.fieldKind === "message" ? field.message : undefined;
  }
  return fields;
}

/** An HTTP request along a route: the path with its query string, and the JSON body if any. */
export interface HttpRequestParts {
  readonly path: string;
  readonly body: string | undefined;
}

/**
 * The HTTP request that carries `request` along `route`: path variables filled (and escaped),
 * the body as proto3 JSON, the other fields as query parameters by their JSON names (nested
 * message fields as dotted names, repeated fields repeated). The fields bound in the path are left
 * out of the body and the query, as gRPC transcoding has it.
 */
export function requestParts<I extends DescMessage>(
  route: HttpRoute,
  request: MessageInitShape<I>,
): HttpRequestParts {
  const schema = route.method.input;
  const message = create(schema, request as MessageInitShape<DescMessage>);
  const json = toJson(schema, message) as JsonObject;
  let variable = 0;
  const segments = route.template
    .slice(1)
    .split("/")
    .map((segment) => {
      if (!VARIABLE.test(segment)) {
        return segment;
      }
      const bound = route.variables[variable++];
      if (bound === undefined) {
        throw new Error(`${route.template}: variables out of step`);
      }
      const value = takeJsonPath(json, bound.fields);
      if (value === undefined || value === null || value === "") {
        const name = bound.fields.map((field) => field.name).join(".");
        throw new Error(`${route.method.name}: the request's ${name} is needed for its path`);
      }
      const text = String(value);
      return bound.rest ? text.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(text);
    });
  let body: string | undefined;
  let queryFields: JsonObject = json;
  if (route.body === "*") {
    body = JSON.stringify(json);
    queryFields = {};
  } else if (route.body !== "") {
    const field = schema.fields.find((each) => each.name === route.body);
    if (field === undefined) {
      throw new Error(`${route.method.name}: body names no field ${route.body}`);
    }
    body = JSON.stringify(json[field.jsonName] ?? {});
    delete json[field.jsonName];
  }
  const query = new URLSearchParams();
  appendQuery(query, "", queryFields);
  const search = query.toString();
  return { path: "/" + segments.join("/") + (search === "" ? "" : "?" + search), body };
}

/** Removes the value at a field path from a JSON object and returns it. */
function takeJsonPath(json: JsonObject, fields: readonly DescField[]): JsonValue | undefined {
  let node: JsonObject = json;
  for (const [index, field] of fields.entries()) {
    const value = node[field.jsonName];
    if (index === fields.length - 1) {
      delete node[field.jsonName];
      return value;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return undefined;
    }
    node = value;
  }
  return undefined;
}

function appendQuery(query: URLSearchParams, prefix: string, value: JsonValue): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      appendQuery(query, prefix, item);
    }
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      appendQuery(query, prefix === "" ? key : `${prefix}.${key}`, item);
    }
  } else if (value !== null && prefix !== "") {
    query.append(prefix, String(value));
  }
}
