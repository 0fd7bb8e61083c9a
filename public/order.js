// The order page tells the truth while payment is pending and shows the
// tickets once paid. It never offers to buy again.
const oid = location.pathname.split('/')[2];
const key = new URLSearchParams(location.search).get('key') || '';
const words = {
  pending: 'Your payment is being confirmed. This page updates by itself.',
  paid: 'Paid. Show a ticket at the door.',
  refunded: 'This order was refunded; its tickets are void.',
  declined: 'The card was declined. Nothing was charged.',
  seat_lost: 'The seats went to another buyer while you paid. Nothing was charged.',
  failed: 'The payment could not be made. Nothing was charged.',
  needs_attention: 'We could not finish this order. Nothing was charged; the cinema has been alerted.',
};
let cardTries = 0;

async function load() {
  const { status, body } = await api(`/api/orders/${oid}?key=${encodeURIComponent(key)}`);
  const messages = document.getElementById('messages');
  if (status !== 200) return say(messages, 'error', 'This order link is not valid.');
  const order = body.order;
  if (body.showing) {
    document.getElementById('title').textContent = body.showing.title;
    document.getElementById('when').textContent = when(body.showing.starts_at_ms);
  }
  say(messages, order.status === 'paid' ? 'ok' : order.status === 'pending' ? 'info' : 'error', words[order.status] || order.status);
  const tickets = order.status === 'pending' ? [] : body.tickets.filter((t) => t.status !== 'pending');
  receipt(order, tickets, body.refunds || [], body.showing);
  const list = document.getElementById('tickets');
  list.replaceChildren(...tickets.map((t) =>
    el('article', { class: 'card ticket' }, [
      el('h2', { text: `Seat ${t.seat}` }),
      t.price_name ? el('p', { class: 'muted', text: `${t.price_name} · ${money({ amount: t.price_amount, currency: order.amount.currency })}` }) : '',
      el('p', { text: ticketState(t) }),
      // A refunded ticket has nothing to scan.
      t.status === 'void'
        ? el('p', { class: 'void-mark', text: 'VOID' })
        : el('img', { src: `/tickets/${t.id}/qr.svg?key=${encodeURIComponent(key)}`, alt: `QR code of the ticket for seat ${t.seat}` }),
      t.short_code ? el('p', {}, ['Ticket number ', el('strong', { class: 'short-code', text: t.short_code })]) : '',
      el('p', {}, [el('a', { href: t.page_url, text: 'Open this ticket on its own' })]),
    ])));
  // The card comes with Square's webhook, moments after the payment: the
  // receipt is read again a few times until it is there.
  const cardDue = order.status === 'paid' && order.channel === 'online' && order.amount.amount > 0 && !order.card;
  if (order.status === 'pending' || (cardDue && cardTries++ < 10)) setTimeout(load, 2000);
}
function ticketState(t) {
  return t.status === 'void' ? 'Void (refunded)' : t.checked_in_at_ms ? 'Checked in' : 'Valid';
}

// Square's card brand codes in words: "AMERICAN_EXPRESS" is "American
// Express"; one not listed is spelled out from its code.
const BRANDS = { VISA: 'Visa', MASTERCARD: 'Mastercard', AMERICAN_EXPRESS: 'American Express', DISCOVER: 'Discover', DISCOVER_DINERS: 'Diners Club', JCB: 'JCB', CHINA_UNIONPAY: 'UnionPay', INTERAC: 'Interac', EFTPOS: 'EFTPOS', FELICA: 'FeliCa', EBT: 'EBT' };

function cardBrand(code) {
  return BRANDS[code] || code.toLowerCase().split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

// Square's refund states in words.
const REFUND_WORDS = { requested: 'asked for', PENDING: 'pending', COMPLETED: 'refunded', REJECTED: 'refused by the bank', FAILED: 'failed' };

// The receipt: who bought what, when, for how much, and what came back.
function receipt(order, tickets, refunds, showing) {
  const box = document.getElementById('receipt');
  box.hidden = order.status === 'pending';
  const currency = order.amount.currency;
  // A ticket sold at the showing's one price does not repeat it.
  const defaultPrice = showing ? showing.price.amount : 0;
  const fact = (term, value) => [el('dt', { text: term }), el('dd', { text: value })];
  document.getElementById('receipt-facts').replaceChildren(
    ...fact('Order number', orderNumber(order.id)),
    ...fact('Ordered', `${localParts(order.created_at_ms, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })}, ${clockTime(order.created_at_ms)}`),
    ...fact('Name', order.name || ''),
    ...fact('E-mail', order.email || ''),
    ...fact('Total', order.amount.amount === 0 ? 'Free' : money(order.amount)),
    ...(order.card ? fact('Paid with', `${cardBrand(order.card.brand)} ending ${order.card.last4}`) : []));
  document.querySelector('#receipt-lines tbody').replaceChildren(...tickets.map((t) => el('tr', {}, [
    el('td', { text: t.seat }), el('td', { text: t.price_name || 'Standard' }),
    el('td', { text: money({ amount: t.price_amount ?? defaultPrice, currency }) }),
    el('td', { text: ticketState(t) })])));
  document.getElementById('refunds').replaceChildren(...(refunds.length ? [
    el('h3', { text: 'Refunds' }),
    el('ul', {}, refunds.map((r) => el('li', { text: `${money({ amount: r.amount, currency })}, ${REFUND_WORDS[r.status] || r.status}, ${localParts(r.updated_at_ms, { day: 'numeric', month: 'short', year: 'numeric' })}` }))),
  ] : []));
}

document.getElementById('print').addEventListener('click', () => window.print());
load();
