// Tiny DOM helpers: h() builds elements without any markup strings (so nothing user-supplied is
// ever parsed as HTML), and a toast area for messages.

/**
 * h("button", {class: "x", onclick: fn, i18n: "key", dataset: {a: 1}, title: "..."}, child, ...)
 * Children may be nodes, strings, numbers, arrays, or null/false (skipped).
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "style" && typeof v === "object") {
      for (const [name, value] of Object.entries(v)) {
        if (name.startsWith("--")) node.style.setProperty(name, value);
        else node.style[name] = value;
      }
    }
    else if (k === "i18n") node.dataset.i18n = v;
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k in node && typeof v !== "string") node[k] = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Show a short message; kind: "error" | "info" | "ok". Errors stay longer and are announced. */
export function toast(text, kind = "info", ms = kind === "error" ? 7000 : 3500) {
  const host = document.getElementById("toasts");
  if (!host) return null;
  const close = h("button", { class: "toast-close", "aria-label": "×", onclick: () => node.remove() }, "×");
  const node = h("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status" }, h("span", {}, text), close);
  host.appendChild(node);
  setTimeout(() => node.remove(), ms);
  return node;
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { style: { position: "fixed", opacity: "0" } });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}
