/* dom.js - owns how the dashboard finds and makes elements: $(id) and
 * el(tag, attrs, ...children). Nothing else; every view builds its DOM with
 * these two. */

export const $ = (id) => document.getElementById(id);

/* An element with attributes (text: its text; false, null and undefined: left
 * out; true: an empty attribute) and children (nodes or strings; null skipped). */
export const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
};
