// The answer is the same whether or not the address bought anything, so
// this page cannot tell anyone who did.
document.getElementById('find').addEventListener('submit', async (event) => {
  event.preventDefault();
  const messages = document.getElementById('messages');
  const email = document.getElementById('email').value.trim();
  const { status, body } = await api('/api/orders/lookup', { json: { email }, headers: await Turnstile.headers() });
  Turnstile.reset();
  if (status === 202) return say(messages, 'ok', 'If that address has orders with us, a message with their links is on its way. It can take a few minutes; check your spam folder too.');
  if (status === 429) return say(messages, 'error', 'Too many requests from here. Try again in an hour.');
  say(messages, 'error', body.detail || 'That did not work. Try again.');
  document.getElementById('email').focus();
});
Turnstile.mount(document.getElementById('turnstile'), 'lookup');
