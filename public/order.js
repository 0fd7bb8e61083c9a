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
  const list = document.getElementById('tickets');
  list.replaceChildren(...(order.status === 'pending' ? [] : body.tickets.filter((t) => t.status !== 'pending').map((t) =>
    el('article', { class: 'card ticket' }, [
      el('h2', { text: `Seat ${t.seat}` }),
      t.price_name ? el('p', { class: 'muted', text: `${t.price_name} · ${money({ amount: t.price_amount, currency: order.amount.currency })}` }) : '',
      el('p', { text: t.status === 'void' ? 'Void (refunded)' : t.checked_in_at_ms ? 'Checked in' : 'Valid' }),
      el('img', { src: `/tickets/${t.id}/qr.svg?key=${encodeURIComponent(key)}`, alt: `QR code of the ticket for seat ${t.seat}` }),
      el('p', {}, [el('a', { href: t.page_url, text: 'Open this ticket on its own' })]),
    ]))));
  if (order.status === 'pending') setTimeout(load, 2000);
}
load();
