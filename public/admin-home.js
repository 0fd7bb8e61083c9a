// The admin home: sign in, then what needs attention, the showings and
// order search across all of them.
'use strict';

const messages = document.getElementById('messages');
const KINDS = {
  payment_unknown: 'Payment outcome unknown',
  needs_attention: 'Needs a decision',
  reconciliation: 'Found before the showing',
  paid_without_tickets: 'Paid, but no tickets',
  partial_refund: 'Partial refund: choose its tickets',
  seat_lost: 'Seat lost after payment (nothing charged)',
  mail_failed: 'A message could not be sent',
  refund_failed: 'A refund did not happen: refund again, or settle it by hand',
};

function orderLink(row) {
  // A payment no order knows names no order: its showing, then.
  if (row.kind === 'reconciliation' && !row.order_id) return el('a', { href: `/admin/showings/${row.showing_id}`, text: 'Its showing' });
  return el('a', { href: `/admin/showings/${row.showing_id}?order=${encodeURIComponent(row.order_id || row.id)}`, text: orderNumber(row.order_id || row.id) });
}

// What staff can settle by hand; an unknown payment is settled by the
// recovery sweep, and a partial refund by choosing its tickets.
const HANDLED_BY_HAND = ['needs_attention', 'paid_without_tickets', 'seat_lost', 'mail_failed', 'refund_failed', 'reconciliation'];

// Where "Mark handled" saves its note: a difference found before the
// showing is its showing's; anything else, its order's.
function handledCall(item, note) {
  if (item.kind === 'reconciliation') {
    return adminApi(`/api/admin/showings/${encodeURIComponent(item.showing_id)}/reconcile/handled`,
      { json: { kind: item.finding_kind, subject: item.finding_subject, note } });
  }
  return adminApi(`/api/admin/orders/${encodeURIComponent(item.order_id)}/handled`, { json: { note } });
}

// "Mark handled…" opens a note field: what was done, kept in the history.
function handledButton(item) {
  const box = el('div', {});
  const what = item.kind === 'reconciliation' ? item.finding_subject : `order ${orderNumber(item.order_id)}`;
  const open = el('button', { type: 'button', class: 'link', text: 'Mark handled…', 'aria-label': `Mark handled… ${what}` });
  open.addEventListener('click', () => {
    const input = el('input', { type: 'text', maxlength: '500', 'aria-label': `What was done for ${what}` });
    const save = el('button', { type: 'button', class: 'secondary', text: 'Save' });
    save.addEventListener('click', async () => {
      const { status, body } = await handledCall(item, input.value);
      if (status !== 204) return say(messages, 'error', body.detail || 'That could not be saved.');
      say(messages, 'ok', `${what[0].toUpperCase()}${what.slice(1)} marked handled.`);
      showDashboard();
    });
    box.replaceChildren(input, save);
    input.focus();
  });
  box.append(open);
  return box;
}

// The first-deploy checklist from /api/health, shown until every line is
// right; a setting that stops the Worker is listed the same way.
async function showChecklist() {
  const { status, body } = await api('/api/health');
  cinemaCurrency = (body.square && body.square.location_currency) || null;
  const lines = body.checklist || (body.settings || []).map((s) => ({ setting: s.name, ok: false, detail: s.problem }));
  const list = document.getElementById('checklist');
  list.replaceChildren(...lines.map((line) => el('li', { class: line.ok ? 'ok' : 'error' }, [
    el('span', { class: 'mark', 'aria-hidden': 'true', text: line.ok ? '✓ ' : '✗ ' }),
    el('strong', { text: line.setting }), `${line.ok ? '' : ' (to fix)'}: ${line.detail}`])));
  document.getElementById('setup').hidden = status === 200 && lines.every((line) => line.ok);
}

// The cinema's currency, for a fixed amount off: Square's location's, as
// /api/health tells staff.
let cinemaCurrency = null;

function codeOff(off) {
  if (off.kind === 'percent') return `${off.percent} % of each ticket`;
  const amount = cinemaCurrency ? minor(off.amount, cinemaCurrency) : `${off.amount} (minor units)`;
  return `${amount} off ${off.per_order ? 'the order' : 'each ticket'}`;
}

// How a code was used: orders paid with it, a limited code's uses on
// holds now, and what it took off in all.
function codeUsed(uses) {
  if (!uses) return '';
  const held = uses.on_holds == null ? '' : `, ${uses.on_holds} on holds`;
  const left = uses.left == null ? '' : `, ${uses.left} left`;
  const off = uses.discounted_minor && cinemaCurrency ? ` · ${minor(uses.discounted_minor, cinemaCurrency)} off` : '';
  return `${uses.paid} paid${held}${left}${off}`;
}

// The uses of the codes listed first (each asks the code's own object).
const CODES_WITH_USES = 50;

async function showCodes() {
  const { status, body } = await adminApi('/api/admin/codes');
  if (status !== 200) return;
  const codes = body.codes;
  const used = await Promise.all(codes.slice(0, CODES_WITH_USES).map(async (c) => {
    const { status: found, body: one } = await adminApi(`/api/admin/codes/${encodeURIComponent(c.code)}`);
    return found === 200 ? one.uses : null;
  }));
  document.getElementById('codes').replaceChildren(codes.length
    ? table(['Code', 'Takes off', 'Limits', 'Used', 'Status', ''], codes.map((c, i) => {
      const paused = c.paused_at_ms != null;
      const toggle = el('button', { type: 'button', class: 'link', text: paused ? 'Resume' : 'Pause', 'aria-label': `${paused ? 'Resume' : 'Pause'} ${c.code}` });
      toggle.addEventListener('click', async () => {
        const { status: done, body: answer } = await adminApi(`/api/admin/codes/${encodeURIComponent(c.code)}/${paused ? 'resume' : 'pause'}`, { json: {} });
        if (done !== 200) return say(document.getElementById('code-messages'), 'error', answer.detail || 'That could not be changed.');
        showCodes();
      });
      const uses = [c.max_uses == null ? 'no limit' : `at most ${c.max_uses}`, c.max_uses_per_buyer == null ? '' : `${c.max_uses_per_buyer} a buyer`].filter(Boolean).join(', ');
      return [c.code, codeOff(c.off), uses, codeUsed(used[i]), paused ? 'Paused' : 'On', toggle];
    }))
    : el('p', { class: 'muted', text: 'No codes yet.' }));
}

document.getElementById('code-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const out = document.getElementById('code-messages');
  const kind = document.getElementById('code-kind').value;
  const value = document.getElementById('code-value').value.trim();
  const body = { code: document.getElementById('code-name').value.trim() };
  if (kind === 'percent') {
    body.percent_off = Number(value);
  } else {
    if (!cinemaCurrency) return say(out, 'error', 'The cinema\'s currency is not known until Square answers for its location.');
    const amount = toMinor(value, cinemaCurrency);
    if (amount === null) return say(out, 'error', `Give the amount in ${cinemaCurrency}, like ${majorText(500, cinemaCurrency)}.`);
    body.amount_off = amount;
    body.per = kind;
  }
  for (const [input, field] of [['code-uses', 'max_uses'], ['code-per-buyer', 'max_uses_per_buyer']]) {
    const uses = document.getElementById(input).value;
    if (uses) body[field] = Number(uses);
  }
  const { status, body: answer } = await adminApi('/api/admin/codes', { json: body });
  if (status !== 201) return say(out, 'error', answer.detail || 'The code could not be saved.');
  event.target.reset();
  say(out, 'ok', `${answer.code.code} saved.`);
  showCodes();
});

async function registerApplePay() {
  const out = document.getElementById('apple-pay-messages');
  const { status, body } = await adminApi('/api/admin/apple-pay/domain', { json: {} });
  if (status !== 200) return say(out, 'error', body.detail || 'The domain could not be registered.');
  say(out, 'ok', body.status === 'VERIFIED'
    ? `${body.domain} is registered: Safari offers Apple Pay there.`
    : `${body.domain} is registered and Square is still verifying it (${body.status}); press again in a few minutes.`);
}

async function showDashboard() {
  document.getElementById('signin').hidden = true;
  document.getElementById('dashboard').hidden = false;
  document.getElementById('signout').hidden = false;
  document.getElementById('new-link').hidden = false;
  document.getElementById('reports-link').hidden = false;
  showChecklist().then(showCodes);
  const [attention, showings] = await Promise.all([adminApi('/api/admin/attention'), adminApi('/api/admin/showings')]);
  if (attention.status !== 200 || showings.status !== 200) {
    return say(messages, 'error', (attention.body.detail || showings.body.detail || 'The admin data could not be loaded.'));
  }
  const now = attention.body.now_ms;
  const items = attention.body.items;
  document.getElementById('attention').replaceChildren(items.length
    ? table(['What', 'Waiting', 'Order', 'E-mail', 'Amount', 'Detail', ''], items.map((i) => [
      KINDS[i.kind] || i.kind, age(i.since_ms, now), orderLink(i), i.email || '', i.amount == null ? '' : minor(i.amount, i.currency), i.detail || '',
      HANDLED_BY_HAND.includes(i.kind) ? handledButton(i) : '']))
    : el('p', { class: 'muted', text: 'Nothing needs attention.' }));
  const rows = showings.body.showings;
  document.getElementById('showings').replaceChildren(rows.length
    ? table(['Showing', 'Starts', 'Price', 'Sold', 'Revenue', 'Admitted', ''], rows.map((s) => [
      el('a', { href: `/admin/showings/${s.id}`, text: s.title }),
      `${s.cancelled_at_ms ? 'Cancelled · ' : s.starts_at_ms < now ? 'Started · ' : ''}${when(s.starts_at_ms)}`,
      minor(s.price_amount, s.currency), `${s.sold} of ${s.seat_count}`, minor(s.revenue, s.currency), String(s.admitted),
      el('a', { href: `/admin/showings/${s.id}/edit`, 'aria-label': `Edit ${s.title}`, text: 'Edit' })]))
    : el('p', { class: 'muted', text: 'No showings yet.' }));
  await loadCatalog();
}

// Films: listed, added and edited here; a showing refers to one.
let films = [];

async function loadCatalog() {
  const [filmList, screenList] = await Promise.all([adminApi('/api/admin/films'), adminApi('/api/admin/screens')]);
  films = filmList.body.films || [];
  document.getElementById('films').replaceChildren(films.length
    ? table(['Film', 'Runtime', 'Rating', ''], films.map((f) => [
      f.title, f.runtime_minutes ? `${f.runtime_minutes} min` : '', f.certificate || '',
      el('button', { type: 'button', class: 'link', text: 'Edit', 'aria-label': `Edit ${f.title}`, onclick: () => editFilm(f) })]))
    : el('p', { class: 'muted', text: 'No films yet.' }));
  const screens = screenList.body.screens || [];
  document.getElementById('screens').replaceChildren(screens.length
    ? table(['Screen', 'Rows'], screens.map((s) => [s.name, [...(s.layout.rows || []).map((r) => `${r.name} (${r.seats})`), ...(s.layout.zones || []).map((z) => `${z.name} (${z.capacity} places)`)].join(', ') || `${(s.layout.slots || []).length} places`]))
    : el('p', { class: 'muted', text: 'No screens yet.' }));
}

const FILM_FIELDS = [['film-title', 'title'], ['film-runtime', 'runtime_minutes'], ['film-certificate', 'certificate'], ['film-poster', 'poster_url'], ['film-synopsis', 'synopsis']];

function editFilm(film) {
  document.getElementById('film-id').value = film.id;
  for (const [input, field] of FILM_FIELDS) document.getElementById(input).value = film[field] ?? '';
  document.getElementById('film-form-heading').textContent = `Edit ${film.title}`;
  document.getElementById('film-save').textContent = 'Save film';
  document.getElementById('film-title').focus();
}

document.getElementById('film-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const id = document.getElementById('film-id').value;
  const body = {};
  for (const [input, field] of FILM_FIELDS) {
    const value = document.getElementById(input).value.trim();
    body[field] = field === 'runtime_minutes' ? (value ? Number(value) : null) : value || null;
  }
  const saved = id
    ? await adminApi(`/api/admin/films/${id}`, { method: 'PUT', json: body })
    : await adminApi('/api/admin/films', { json: body });
  const out = document.getElementById('film-messages');
  if (saved.status !== 200 && saved.status !== 201) return say(out, 'error', saved.body.detail || 'The film could not be saved.');
  event.target.reset();
  document.getElementById('film-id').value = '';
  document.getElementById('film-form-heading').textContent = 'Add a film';
  document.getElementById('film-save').textContent = 'Add film';
  const carried = (saved.body.showings_updated || []).length;
  say(out, 'ok', `${body.title} saved.${carried ? ` ${carried} showing(s) that sold nothing yet now carry its title.` : ''}`);
  loadCatalog();
});

document.getElementById('signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const { status, body } = await api('/api/admin/session', { json: { token: document.getElementById('token').value } });
  if (status !== 200) return say(messages, 'error', body.detail || 'Signing in failed.');
  csrf = body.csrf;
  const next = new URLSearchParams(location.search).get('next');
  // Only a page of this admin: never an address from elsewhere.
  if (next && /^\/admin(\/|$)/.test(next)) { location.href = next; return; }
  messages.replaceChildren();
  showDashboard();
});

document.getElementById('search-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = document.getElementById('search-email').value;
  const { status, body } = await adminApi('/api/admin/orders?q=' + encodeURIComponent(text));
  const out = document.getElementById('search-results');
  if (status !== 200) return say(out, 'error', body.detail || 'The search failed.');
  out.replaceChildren(body.orders.length
    ? table(['Order', 'E-mail', 'Name', 'Seats', 'Amount', 'Status', 'Ordered'], body.orders.map((o) => [
      orderLink(o), o.email, o.name, o.seats || '', minor(o.amount, o.currency), ORDER_STATES[o.status] || o.status, when(o.created_at_ms)]),
    `${body.orders.length} order${body.orders.length === 1 ? '' : 's'} for “${text}”`)
    : el('p', { text: `No order has an e-mail, name or order number containing “${text}”.` }));
});

document.getElementById('signout').addEventListener('click', signOut);
document.getElementById('signout-everywhere').addEventListener('click', signOutEverywhere);
document.getElementById('apple-pay-register').addEventListener('click', registerApplePay);

(async () => {
  const { status, body } = await api('/api/admin/session');
  if (status === 200) { csrf = body.csrf; showDashboard(); }
  else document.getElementById('signin').hidden = false;
})();
