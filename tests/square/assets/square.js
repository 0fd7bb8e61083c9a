// Stand-in for Square's Web Payments SDK (https://web.squarecdn.com/v1/square.js),
// served by the local Square stand-in. Same entry points as the real SDK:
//   const payments = Square.payments(applicationId, locationId);
//   const card = await payments.card();
//   await card.attach('#card-container');
//   const result = await card.tokenize(verificationDetails); // {status: 'OK', token: 'cnon:…'}
//   await card.destroy();
//   const wallet = await payments.googlePay(payments.paymentRequest({...}));
//   const { token } = await wallet.tokenize();
//   const { token: verificationToken } = await payments.verifyBuyer(token, details);
// The typed card goes to this script's own origin, which mints the token.
(function () {
  'use strict';

  // The stand-in that served this file; the page itself lives elsewhere.
  var script = document.currentScript;
  var standinOrigin = new URL(script && script.src ? script.src : '/', window.location.href).origin;
  var cardCount = 0;

  var FIELDS = [
    { name: 'card_number', label: 'Card number', autocomplete: 'cc-number', placeholder: '4111 1111 1111 1111', maxLength: 23 },
    { name: 'expiration', label: 'Expiry (MM/YY)', autocomplete: 'cc-exp', placeholder: 'MM/YY', maxLength: 5 },
    { name: 'cvv', label: 'CVV', autocomplete: 'cc-csc', placeholder: '111', maxLength: 4 },
    { name: 'postal_code', label: 'Postal code', autocomplete: 'postal-code', placeholder: '94103', maxLength: 12 }
  ];

  function failure(status, type, message) {
    return { status: status, errors: [{ type: type, message: message }] };
  }

  function Card(applicationId, locationId) {
    this._applicationId = applicationId;
    this._locationId = locationId;
    this._id = 'sq-standin-card-' + (++cardCount);
    this._form = null;
    this._inputs = {};
  }

  Card.prototype.attach = async function (target) {
    var container = typeof target === 'string' ? document.querySelector(target) : target;
    if (!container) {
      throw new Error('Square stand-in: attach() found no element for ' + target);
    }
    if (this._form) {
      throw new Error('Square stand-in: this card is already attached');
    }
    var form = document.createElement('div');
    form.setAttribute('role', 'group');
    form.setAttribute('aria-label', 'Card details');
    form.className = 'sq-standin-card';
    var self = this;
    FIELDS.forEach(function (field) {
      var id = self._id + '-' + field.name;
      var label = document.createElement('label');
      label.htmlFor = id;
      label.textContent = field.label;
      var input = document.createElement('input');
      input.id = id;
      input.name = field.name;
      input.type = 'text';
      input.inputMode = 'numeric';
      input.autocomplete = field.autocomplete;
      input.placeholder = field.placeholder;
      input.maxLength = field.maxLength;
      input.required = true;
      if (field.name === 'postal_code') {
        input.inputMode = 'text';
      }
      var row = document.createElement('div');
      row.appendChild(label);
      row.appendChild(input);
      form.appendChild(row);
      self._inputs[field.name] = input;
    });
    container.appendChild(form);
    this._form = form;
  };

  // The stand-in's own calls back to the server that served this file.
  async function post(path, body) {
    try {
      var answer = await fetch(standinOrigin + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body)
      });
      return await answer.json();
    } catch (error) {
      return failure('Error', 'UNKNOWN', 'The Square stand-in could not be reached: ' + error);
    }
  }

  // The issuer's challenge, as Square shows it in its own frame: a modal
  // asking for the code the bank sent. Resolves to the code, or null if the
  // buyer cancels.
  // A modal over the page, as Square's frames are: `name` labels it, and
  // `nodes` fill it. Answers a function that removes it.
  function modal(name, nodes, bottom) {
    var overlay = document.createElement('div');
    overlay.setAttribute('style', 'position:fixed;inset:0;background:rgba(0,0,0,.5);display:flex;justify-content:center;z-index:1000;align-items:' + (bottom ? 'flex-end' : 'center'));
    var dialog = document.createElement('div');
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'true');
    dialog.setAttribute('aria-label', name);
    dialog.setAttribute('style', 'background:#fff;color:#222;padding:1rem;border-radius:8px;width:100%;max-width:24rem');
    nodes.forEach(function (node) { dialog.appendChild(node); });
    overlay.appendChild(dialog);
    document.body.appendChild(overlay);
    return function () { overlay.parentNode.removeChild(overlay); };
  }

  function element(tag, text) {
    var node = document.createElement(tag);
    if (text) node.textContent = text;
    if (tag === 'button') node.type = 'button';
    return node;
  }

  // The issuer's challenge, as Square shows it in its own frame: a modal
  // asking for the code the bank sent. Resolves to the code, or null if the
  // buyer cancels.
  function challenge() {
    return new Promise(function (resolve) {
      var label = element('label', 'Verification code');
      label.htmlFor = 'sq-standin-challenge-code';
      var input = element('input');
      input.id = 'sq-standin-challenge-code';
      input.inputMode = 'numeric';
      input.autocomplete = 'one-time-code';
      var submit = element('button', 'Verify');
      var cancel = element('button', 'Cancel verification');
      var close = modal('Verify this payment', [
        element('h2', 'Verify this payment'),
        element('p', 'Your bank sent you a code. (Sandbox: 123456.)'),
        label, input, submit, cancel
      ]);
      submit.addEventListener('click', function () { close(); resolve(input.value); });
      cancel.addEventListener('click', function () { close(); resolve(null); });
      input.focus();
    });
  }

  // tokenize(verificationDetails): with the details, a card whose issuer
  // asks for Strong Customer Authentication is verified here (after a
  // challenge for some cards); a cancelled challenge answers status
  // 'Cancel'. Without them, the token is unverified and such a card is
  // declined when charged.
  Card.prototype.tokenize = async function (verificationDetails) {
    if (!this._form) {
      return failure('Error', 'UNKNOWN', 'attach() must be called before tokenize()');
    }
    var body = { application_id: this._applicationId, location_id: this._locationId };
    if (verificationDetails !== undefined) {
      body.verification_details = verificationDetails;
    }
    var inputs = this._inputs;
    Object.keys(inputs).forEach(function (name) {
      body[name] = inputs[name].value;
    });
    var result = await post('/_sdk/tokenize', body);
    if (result.status !== 'CHALLENGE') {
      return result;
    }
    var code = await challenge();
    if (code === null) {
      return failure('Cancel', 'VERIFICATION_CANCELED', 'The buyer canceled the verification.');
    }
    return post('/_sdk/verify', { challenge_id: result.challenge_id, code: code });
  };

  Card.prototype.destroy = async function () {
    if (this._form && this._form.parentNode) {
      this._form.parentNode.removeChild(this._form);
    }
    this._form = null;
    this._inputs = {};
    return true;
  };

  // A payment sheet, as a wallet shows it: the total and the cinema,
  // "Pay" or "Cancel". Resolves to true when the buyer pays.
  function sheet(walletName, request) {
    return new Promise(function (resolve) {
      var pay = element('button', 'Pay');
      var cancel = element('button', 'Cancel');
      var close = modal(walletName, [
        element('p', request.total.label + ': ' + request.total.amount + ' ' + request.currencyCode + ' with Visa •••• 1111'),
        pay, cancel
      ], true);
      pay.addEventListener('click', function () { close(); resolve(true); });
      cancel.addEventListener('click', function () { close(); resolve(false); });
      pay.focus();
    });
  }

  // payments.paymentRequest(options): checked as the SDK documents it
  // (https://developer.squareup.com/reference/sdks/web/payments/digital-wallets/google-pay):
  // a country, a currency and a total whose amount is a decimal string.
  function paymentRequest(options) {
    var ok = options && /^[A-Z]{2}$/.test(options.countryCode || '') && /^[A-Z]{3}$/.test(options.currencyCode || '') &&
      options.total && /^\d+(\.\d+)?$/.test(options.total.amount || '') && typeof options.total.label === 'string';
    if (!ok) {
      throw new Error('Square stand-in: paymentRequest() needs countryCode, currencyCode and total {amount, label}');
    }
    return { countryCode: options.countryCode, currencyCode: options.currencyCode, total: options.total };
  }

  // A wallet: its button attached into the page (Google Pay) or drawn by
  // the page (Apple Pay), and tokenize() behind its payment sheet. The
  // token pays the wallet's card, a Visa ending 1111.
  function Wallet(name, applicationId, locationId, request) {
    this._name = name;
    this._body = {
      application_id: applicationId, location_id: locationId, wallet: true,
      card_number: '4111111111111111', expiration: '12/40', cvv: '111', postal_code: '94103'
    };
    this._request = request;
  }

  Wallet.prototype.attach = async function (target) {
    var container = typeof target === 'string' ? document.querySelector(target) : target;
    if (!container) {
      throw new Error('Square stand-in: attach() found no element for ' + target);
    }
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'sq-standin-wallet';
    button.textContent = this._name;
    button.setAttribute('aria-label', 'Pay with ' + this._name);
    container.appendChild(button);
  };

  Wallet.prototype.tokenize = async function () {
    if (!(await sheet(this._name, this._request))) {
      return failure('Cancel', 'CANCELED', 'The buyer closed the ' + this._name + ' sheet.');
    }
    var result = await post('/_sdk/tokenize', this._body);
    if (result.details) {
      result.details.method = this._name;
    }
    return result;
  };

  Wallet.prototype.destroy = async function () {
    return true;
  };

  function payments(applicationId, locationId) {
    if (!applicationId || !locationId) {
      throw new Error('Square stand-in: payments() needs an application id and a location id');
    }
    return {
      card: async function () {
        return new Card(applicationId, locationId);
      },
      paymentRequest: paymentRequest,
      // verifyBuyer(token, details): Strong Customer Authentication for a
      // wallet's token, as Square's digital wallets guide asks; resolves to
      // {token, userChallenged} and throws when the details or the token
      // are refused, as the SDK does.
      verifyBuyer: async function (source, details) {
        var result = await post('/_sdk/verify-buyer', { source_id: source, verification_details: details });
        if (result.status !== 'OK') {
          throw new Error((result.errors || []).map(function (e) { return e.message; }).join(' ') || 'verifyBuyer failed');
        }
        return { token: result.token, userChallenged: result.userChallenged };
      },
      // Google Pay works in Chrome, Firefox, Safari and Edge; Apple Pay only
      // where the browser has Apple Pay (Safari), as with the real SDK,
      // which also needs the site's domain registered with Square.
      googlePay: async function (request) {
        return new Wallet('Google Pay', applicationId, locationId, request);
      },
      applePay: async function (request) {
        if (!window.ApplePaySession) {
          throw new Error('Apple Pay is not supported in this browser.');
        }
        return new Wallet('Apple Pay', applicationId, locationId, request);
      }
    };
  }

  window.Square = { payments: payments };
})();
