// What the admin pages share: the staff session (an HttpOnly cookie the
// page never sees, and the CSRF token every change must carry), and small
// formatting helpers. Loaded after app.js.
'use strict';

let csrf = null;

// Every admin call carries the session's CSRF token; a lost session sends
// staff back to sign in, then here again.
async function adminApi(path, options) {
  const opts = Object.assign({}, options || {});
  opts.headers = Object.assign({}, opts.headers, csrf ? { 'x-csrf-token': csrf } : {});
  const reply = await api(path, opts);
  if (reply.status === 401) toSignIn();
  return reply;
}

function toSignIn() {
  location.href = '/admin?next=' + encodeURIComponent(location.pathname + location.search);
}

// Resolves with true once the session's CSRF token is known.
async function requireSession() {
  const { status, body } = await api('/api/admin/session');
  if (status !== 200) { toSignIn(); return false; }
  csrf = body.csrf;
  return true;
}

async function signOut() {
  await adminApi('/api/admin/session', { method: 'DELETE' });
  location.href = '/admin';
}

// Every staff browser, this one too: for a lost or shared device.
async function signOutEverywhere() {
  await adminApi('/api/admin/sessions', { method: 'DELETE' });
  location.href = '/admin';
}

// "3 min", "2 h 5 min", "4 days": how long something has waited.
function age(sinceMs, nowMs) {
  const minutes = Math.max(0, Math.floor((nowMs - sinceMs) / 60000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

function minor(amount, currency) {
  return money({ amount, currency });
}

function table(headings, rows, caption) {
  return el('table', { class: 'data' }, [
    caption ? el('caption', { text: caption }) : '',
    el('thead', {}, [el('tr', {}, headings.map((h) => el('th', { scope: 'col', text: h })))]),
    el('tbody', {}, rows.map((cells) => el('tr', {}, cells.map((c) => el('td', {}, [c]))))),
  ]);
}

const ORDER_STATES = {
  pending: 'Paying', paid: 'Paid', declined: 'Declined', seat_lost: 'Seat lost (nothing charged)',
  needs_attention: 'Needs attention', failed: 'Failed', refunded: 'Refunded', exchanged: 'Exchanged to another showing',
};
