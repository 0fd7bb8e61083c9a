// The order page tells the truth while payment is pending and shows the
// tickets once paid. It never offers to buy again.
const oid = location.pathname.split('/')[2];
const key = new URLSearchParams(location.search).get('key') || '';
const words = {
  pending: 'Your payment is being confirmed. This page updates by itself.',
  paid: 'Paid. Show a ticket at the door.',
  refunded: 'This order was refunded; its tickets are void.',
  exchanged: 'These tickets were changed to another showing and are void. Your new tickets were e-mailed to you.',
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
  // A ticket staff moved is replaced by its new one: the receipt has a line for that one only.
  receipt(order, tickets.filter((t) => !t.moved_to_seat), body.refunds || [], body.showing);
  const list = document.getElementById('tickets');
  list.replaceChildren(...tickets.map((t) =>
    el('article', { class: 'card ticket' }, [
      el('h2', { text: placeText(t.seat) }),
      t.price_name ? el('p', { class: 'muted', text: `${t.price_name} · ${money({ amount: t.price_amount, currency: order.amount.currency })}` }) : '',
      el('p', { text: ticketState(t) }),
      // A refunded or moved ticket has nothing to scan.
      t.status === 'void'
        ? el('p', { class: 'void-mark', text: t.moved_to_seat ? 'MOVED' : 'VOID' })
        : el('img', { src: `/tickets/${t.id}/qr.svg?key=${encodeURIComponent(key)}`, alt: `QR code of the ticket for ${ticketFor(t.seat)}` }),
      t.short_code ? el('p', {}, ['Ticket number ', el('strong', { class: 'short-code', text: t.short_code })]) : '',
      el('p', {}, [el('a', { href: t.page_url, text: 'Open this ticket on its own' })]),
    ])));
  cancelBox(body.changes && body.changes.cancel, tickets, order.amount.currency);
  exchangeBox(body.changes && body.changes.exchange, tickets, order.amount.currency);
  // The card comes with Square's webhook, moments after the payment: the
  // receipt is read again a few times until it is there.
  const cardDue = order.status === 'paid' && order.channel === 'online' && order.amount.amount > 0 && !order.card;
  if (order.status === 'pending' || (cardDue && cardTries++ < 10)) setTimeout(load, 2000);
}
function ticketState(t) {
  if (t.moved_to_seat) return `Moved to seat ${t.moved_to_seat}: use the new ticket`;
  if (t.status === 'void') return t.exchanged ? 'Void (changed to another showing)' : 'Void (refunded)';
  return t.checked_in_at_ms ? 'Checked in' : 'Valid';
}

// Square's card brand codes in words: "AMERICAN_EXPRESS" is "American
// Express"; one not listed is spelled out from its code.
const BRANDS = { VISA: 'Visa', MASTERCARD: 'Mastercard', AMERICAN_EXPRESS: 'American Express', DISCOVER: 'Discover', DISCOVER_DINERS: 'Diners Club', JCB: 'JCB', CHINA_UNIONPAY: 'UnionPay', INTERAC: 'Interac', EFTPOS: 'EFTPOS', FELICA: 'FeliCa', EBT: 'EBT' };

function cardBrand(code) {
  return BRANDS[code] || code.toLowerCase().split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

// Square's refund states in words.
const REFUND_WORDS = { requested: 'asked for', waiting: 'queued behind another refund', PENDING: 'pending', COMPLETED: 'refunded', REJECTED: 'refused by the bank', FAILED: 'failed' };

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
    ...fact('Total', order.amount.amount === 0 ? 'Free' : withTax(order.amount, order.tax)),
    ...(order.credit ? fact('Paid by your exchanged tickets', money({ amount: order.credit, currency })) : []),
    ...(order.discount && order.discount.amount ? fact('Discount', `${money({ amount: order.discount.amount, currency })} off with code ${order.discount.code}`) : []),
    ...(order.card ? fact('Paid with', `${cardBrand(order.card.brand)} ending ${order.card.last4}`) : []));
  // With tax: each line's net, tax and price, and the order's in all.
  const tax = order.tax && order.tax.amount ? order.tax : null;
  const cash = (amount) => money({ amount, currency });
  const th = (text) => el('th', { scope: 'col', text });
  // One rate for the whole order goes in the heading, else on each line.
  const oneRate = tax && tax.rate_bps !== null;
  const taxHead = tax ? `${tax.name}${oneRate ? ` ${rateText(tax.rate_bps)}` : ''}${tax.inclusive ? ' included' : ' added'}` : '';
  document.getElementById('receipt-head').replaceChildren(...(tax
    ? [th('Seat'), th('Ticket'), th('Net'), th(taxHead), th('Price'), th('State')]
    : [th('Seat'), th('Ticket'), th('Price'), th('State')]));
  document.querySelector('#receipt-lines tbody').replaceChildren(...tickets.map((t) => el('tr', {}, [
    el('td', { text: unitText(t.seat) }), el('td', { text: t.price_name || 'Standard' }),
    ...(tax ? [el('td', { text: cash(t.net ?? t.price_amount) }), el('td', { text: `${cash(t.tax || 0)}${!oneRate && t.tax_rate_bps ? ` (${rateText(t.tax_rate_bps)})` : ''}` })] : []),
    el('td', { text: cash(t.price_amount ?? defaultPrice) }),
    el('td', { text: ticketState(t) })])));
  document.querySelector('#receipt-lines tfoot').replaceChildren(...(tax ? [el('tr', {}, [
    el('th', { scope: 'row', colspan: '2', text: 'Total' }),
    el('td', { text: cash(order.amount.amount - tax.amount) }), el('td', { text: cash(tax.amount) }),
    el('td', { text: cash(order.amount.amount) }), el('td', { text: '' })])] : []));
  document.getElementById('refunds').replaceChildren(...(refunds.length ? [
    el('h3', { text: 'Refunds' }),
    el('ul', {}, refunds.map((r) => el('li', { text: `${money({ amount: r.amount, currency })}, ${REFUND_WORDS[r.status] || r.status}, ${localParts(r.updated_at_ms, { day: 'numeric', month: 'short', year: 'numeric' })}` }))),
  ] : []));
}

// Cancelling: what the showing's policy allows, what comes back for the
// tickets chosen (the server's own sums), a question before anything
// happens, and why not when it is not allowed.
function feeWords(fee, currency) {
  if (fee.fixed) return `${money({ amount: fee.fixed, currency })} of each ticket is kept as a fee.`;
  if (fee.percent) return `${fee.percent}% of each ticket is kept as a fee.`;
  return 'You get back what you paid.';
}

function cancelBox(cancel, tickets, currency) {
  const box = document.getElementById('cancel');
  const form = document.getElementById('cancel-form');
  const rule = document.getElementById('cancel-rule');
  box.hidden = !cancel || cancel.reason === 'not_paid';
  if (box.hidden) return;
  if (!cancel.open) {
    form.hidden = true;
    rule.textContent = cancel.reason === 'cancel_closed'
      ? `Tickets for this showing could be cancelled until ${when(cancel.closed_at_ms)}. Ask the cinema if you cannot come.`
      : 'Tickets for this showing cannot be cancelled online. Ask the cinema if you cannot come.';
    return;
  }
  const choosable = cancel.tickets.map((c) => ({ ...c, ticket: tickets.find((t) => t.id === c.id) })).filter((c) => c.ticket);
  rule.textContent = `You can cancel until ${when(cancel.closes_at_ms)}. ${feeWords(cancel.fee, currency)}`;
  form.hidden = choosable.length === 0;
  if (form.hidden) return;
  const choices = document.getElementById('cancel-choices');
  choices.replaceChildren(...choosable.map((c) => el('label', { class: 'choice' }, [
    el('input', { type: 'checkbox', value: c.id, 'data-refund': String(c.refund) }),
    ` ${placeText(c.ticket.seat)}: ${money({ amount: c.refund, currency })} back`,
  ])));
  const start = document.getElementById('cancel-start');
  const back = document.getElementById('cancel-back');
  const confirm = document.getElementById('cancel-confirm');
  const chosen = () => [...choices.querySelectorAll('input:checked')];
  const total = () => chosen().reduce((sum, i) => sum + Number(i.dataset.refund), 0);
  choices.onchange = () => {
    confirm.hidden = true;
    start.disabled = chosen().length === 0;
    back.textContent = chosen().length ? `You will get back ${money({ amount: total(), currency })}.` : '';
  };
  choices.onchange();
  form.onsubmit = (event) => {
    event.preventDefault();
    const n = chosen().length;
    document.getElementById('cancel-question').textContent =
      `Cancel ${n} ticket${n === 1 ? '' : 's'} and get back ${money({ amount: total(), currency })}? The cancelled tickets stop working at once.`;
    confirm.hidden = false;
    document.getElementById('cancel-yes').focus();
  };
  document.getElementById('cancel-no').onclick = () => { confirm.hidden = true; start.focus(); };
  document.getElementById('cancel-yes').onclick = async () => {
    const yes = document.getElementById('cancel-yes');
    yes.disabled = true;
    const messages = document.getElementById('messages');
    const { status, body } = await api(`/api/orders/${oid}/cancel?key=${encodeURIComponent(key)}`, {
      json: { tickets: chosen().map((i) => i.value) },
    });
    yes.disabled = false;
    confirm.hidden = true;
    if (status === 202) {
      await load();
      return say(messages, 'ok', `Cancelled. ${money({ amount: body.amount, currency })} is on its way back to your card; it can take a few days to arrive.`, { focus: true });
    }
    // Said where the buyer is looking: the message is brought into view.
    say(messages, 'error', (body && body.detail) || 'The tickets could not be cancelled. Please try again.', { focus: true });
  };
}

// Changing showing: which tickets, to which other showing of the film;
// the seats are chosen on that showing's map, where the difference is
// said before anything moves.
function exchangeBox(exchange, tickets, currency) {
  const box = document.getElementById('exchange');
  const form = document.getElementById('exchange-form');
  const rule = document.getElementById('exchange-rule');
  box.hidden = !exchange || exchange.reason === 'not_paid';
  if (box.hidden) return;
  if (!exchange.open) {
    form.hidden = true;
    rule.textContent = exchange.reason === 'exchange_closed'
      ? `Tickets for this showing could be changed until ${when(exchange.closed_at_ms)}. Ask the cinema if you cannot come.`
      : 'These tickets cannot be changed to another showing online. Ask the cinema.';
    return;
  }
  const choosable = exchange.tickets.map((c) => ({ ...c, ticket: tickets.find((t) => t.id === c.id) })).filter((c) => c.ticket);
  rule.textContent = exchange.showings.length
    ? `You can change to another showing of this film until ${when(exchange.closes_at_ms)}. You pay only what the new seats cost beyond your tickets, or get the rest back.`
    : 'There is no other showing of this film to change to.';
  form.hidden = choosable.length === 0 || exchange.showings.length === 0;
  if (form.hidden) return;
  const ticketsBox = document.getElementById('exchange-tickets');
  ticketsBox.replaceChildren(...choosable.map((c) => el('label', { class: 'choice' }, [
    el('input', { type: 'checkbox', value: c.id, checked: '' }),
    ` ${placeText(c.ticket.seat)} (${money({ amount: c.worth, currency })})`,
  ])));
  const showings = document.getElementById('exchange-showings');
  showings.replaceChildren(...exchange.showings.map((s, i) => el('label', { class: 'choice' }, [
    el('input', { type: 'radio', name: 'exchange-showing', value: s.id, ...(i === 0 ? { checked: '' } : {}) }),
    ` ${when(s.starts_at_ms)}`,
  ])));
  const start = document.getElementById('exchange-start');
  const picked = () => [...ticketsBox.querySelectorAll('input:checked')].map((i) => i.value);
  ticketsBox.onchange = () => { start.disabled = picked().length === 0; };
  ticketsBox.onchange();
  form.onsubmit = (event) => {
    event.preventDefault();
    const to = showings.querySelector('input:checked');
    if (!to || !picked().length) return;
    location.href = `/showings/${to.value}?exchange=${encodeURIComponent(oid)}&key=${encodeURIComponent(key)}&tickets=${picked().map(encodeURIComponent).join(',')}`;
  };
}

document.getElementById('print').addEventListener('click', () => window.print());
load();
