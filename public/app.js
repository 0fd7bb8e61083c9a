// Small helpers shared by the pages. No framework: the pages are plain
// HTML filled in from the JSON API.
'use strict';

async function api(path, options) {
  const opts = Object.assign({ credentials: 'same-origin', headers: {} }, options || {});
  if (opts.json !== undefined) {
    opts.method = opts.method || 'POST';
    opts.headers['content-type'] = 'application/json';
    opts.body = JSON.stringify(opts.json);
    delete opts.json;
  }
  const resp = await fetch(path, opts);
  const text = await resp.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (_) { body = { detail: text }; }
  return { status: resp.status, body: body || {} };
}

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value);
  }
  for (const child of children || []) node.append(child);
  return node;
}

function money(amount) {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: amount.currency })
    .format(amount.amount / 100);
}

function when(ms) {
  return new Date(ms).toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

function say(container, kind, text) {
  container.replaceChildren(el('div', { class: 'message ' + kind, role: kind === 'error' ? 'alert' : 'status', text }));
}
