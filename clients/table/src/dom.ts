/**
 * Building the page: elements with their attributes and children. Text always goes in as text
 * (players' names are the players' input); only the card pictures, made here from constants,
 * go in as markup.
 */

type Child = Node | string | null | undefined | false;

/**
 * An element: `el("button", { class: "card", "aria-label": name }, "text")`. An attribute whose
 * value is `false`, `null` or `undefined` is left out; `true` sets it empty.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | null | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** The element of id `id`, which the page must hold. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** A holder of SVG markup made by this program (never of anyone's input). */
export function picture(markup: string): HTMLSpanElement {
  const span = document.createElement("span");
  span.className = "art";
  span.innerHTML = markup;
  return span;
}
