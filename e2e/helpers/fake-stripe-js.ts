// TEST DOUBLE of Stripe.js for the browser tests of the live hosted payment page (e2e/ui/hosted-payment-live.spec.ts).
// The browser here cannot reach js.stripe.com, so the spec serves this script with Playwright's page.route for the
// URL @stripe/stripe-js injects (https://js.stripe.com/<release>/stripe.js). It implements only the documented
// surface the page uses, and talks HTTP to the Stripe sandbox (sandbox/stripe/server.ts) the way Stripe.js
// talks to api.stripe.com:
//   window.Stripe(publishableKey)                → stripe (Stripe.version = the release @stripe/stripe-js expects)
//   stripe.elements({ clientSecret })           → elements: create("payment"), getElement, update, submit
//   elements.create("payment")                  → element: mount, on/off ("ready", "change"), update, destroy
//   stripe.confirmPayment({ elements, confirmParams: { return_url }, redirect })
//       POST /v1/payment_intents/:id/confirm with key, client_secret, return_url and payment_method_data;
//       resolves { paymentIntent } or { error } (card_error, validation_error); a redirect_to_url next action
//       (3-D Secure) navigates the page there, as Stripe.js does, and never resolves.
// The real Payment Element is an iframe of Stripe's; this double renders plain labelled inputs in the mount node.
// createToken/createPaymentMethod/confirmCardPayment exist only because @stripe/react-stripe-js checks for them to
// recognise a Stripe object; they reject if called.

/** Stripe.js release train @stripe/stripe-js 10.x loads (its RELEASE_TRAIN); the double reports it as version. */
export const STRIPE_JS_RELEASE = "endive";

/** The URLs the loader may inject (https://js.stripe.com/<release>/stripe.js, or /v3). */
export const STRIPE_JS_URL_PATTERN = /^https:\/\/js\.stripe\.com\//;

/** The double's source for route.fulfill, talking to the Stripe sandbox at `apiBase`. */
export const fakeStripeJsSource = (apiBase: string): string => `(() => {
  "use strict";
  const API = ${JSON.stringify(apiBase)};

  const emitter = () => {
    const handlers = {};
    return {
      on(event, cb) { (handlers[event] = handlers[event] || []).push(cb); },
      off(event, cb) { handlers[event] = (handlers[event] || []).filter((h) => h !== cb); },
      emit(event, payload) { for (const h of handlers[event] || []) h(payload); },
    };
  };

  const field = (labelText, name, attrs) => {
    const label = document.createElement("label");
    label.style.display = "block";
    label.textContent = labelText + " ";
    const input = document.createElement("input");
    input.name = name;
    for (const [k, v] of Object.entries(attrs)) input.setAttribute(k, v);
    label.appendChild(input);
    return { label, input };
  };

  const createPaymentElement = () => {
    const events = emitter();
    let root = null;
    const inputs = {};
    const element = {
      mount(target) {
        const node = typeof target === "string" ? document.querySelector(target) : target;
        root = document.createElement("div");
        root.setAttribute("data-fake-stripe", "payment-element");
        const number = field("Card number", "cardnumber", { autocomplete: "cc-number", inputmode: "numeric" });
        const exp = field("Expiration date", "exp-date", { autocomplete: "cc-exp", placeholder: "MM / YY" });
        const cvc = field("Security code", "cvc", { autocomplete: "cc-csc", inputmode: "numeric" });
        inputs.number = number.input;
        inputs.exp = exp.input;
        inputs.cvc = cvc.input;
        for (const f of [number, exp, cvc]) {
          root.appendChild(f.label);
          f.input.addEventListener("input", () =>
            events.emit("change", {
              elementType: "payment",
              empty: !inputs.number.value,
              complete: inputs.number.value.replace(/\\s/g, "").length >= 12,
              value: { type: "card" },
            }),
          );
        }
        node.appendChild(root);
        setTimeout(() => events.emit("ready", { elementType: "payment" }), 0);
      },
      on: events.on,
      off: events.off,
      update() {},
      destroy() { if (root) root.remove(); root = null; },
      _card() {
        return {
          number: (inputs.number ? inputs.number.value : "").replace(/\\s/g, ""),
          exp: inputs.exp ? inputs.exp.value : "",
          cvc: inputs.cvc ? inputs.cvc.value : "",
        };
      },
    };
    return element;
  };

  const unused = (name) => () => Promise.reject(new Error("Stripe.js double: " + name + " is not implemented"));

  const incomplete = { type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete." };

  function Stripe(publishableKey) {
    if (typeof publishableKey !== "string" || !/^pk_(live|test)_/.test(publishableKey)) {
      throw new Error("Invalid publishable key");
    }
    return {
      _registerWrapper() {},
      registerAppInfo() {},
      // @stripe/react-stripe-js recognises a Stripe instance by these methods; the page never calls them
      createToken: unused("createToken"),
      createPaymentMethod: unused("createPaymentMethod"),
      confirmCardPayment: unused("confirmCardPayment"),
      elements(options) {
        let opts = Object.assign({}, options);
        let payment = null;
        return {
          _options: () => opts,
          create(type) {
            if (type !== "payment") throw new Error("This double only implements the Payment Element");
            payment = createPaymentElement();
            return payment;
          },
          getElement(type) { return type === "payment" ? payment : null; },
          update(changes) { opts = Object.assign(opts, changes); },
          async submit() {
            if (!payment || payment._card().number.length < 12) return { error: incomplete };
            return {};
          },
        };
      },
      async confirmPayment({ elements, confirmParams, redirect }) {
        const payment = elements.getElement("payment");
        const card = payment ? payment._card() : { number: "" };
        if (card.number.length < 12) return { error: incomplete };
        const clientSecret = elements._options().clientSecret;
        const id = clientSecret.slice(0, clientSecret.indexOf("_secret_"));
        const [month, year] = (card.exp || "").split("/").map((s) => s.trim());
        const body = new URLSearchParams({
          key: publishableKey,
          client_secret: clientSecret,
          return_url: confirmParams.return_url,
          "payment_method_data[type]": "card",
          "payment_method_data[card][number]": card.number,
          "payment_method_data[card][exp_month]": month || "",
          "payment_method_data[card][exp_year]": year || "",
          "payment_method_data[card][cvc]": card.cvc || "",
        });
        let pi;
        try {
          const response = await fetch(API + "/v1/payment_intents/" + encodeURIComponent(id) + "/confirm", {
            method: "POST",
            body,
          });
          pi = await response.json();
        } catch (e) {
          return { error: { type: "api_connection_error", message: "Network error: " + e } };
        }
        if (pi.error) return { error: pi.error };
        if (pi.status === "requires_action" && pi.next_action && pi.next_action.type === "redirect_to_url") {
          window.location.assign(pi.next_action.redirect_to_url.url);
          return new Promise(() => {});
        }
        if (redirect !== "if_required") {
          const back = new URL(confirmParams.return_url);
          back.searchParams.set("payment_intent", pi.id);
          back.searchParams.set("payment_intent_client_secret", clientSecret);
          back.searchParams.set("redirect_status", pi.status);
          window.location.assign(back.toString());
          return new Promise(() => {});
        }
        return { paymentIntent: pi };
      },
    };
  }
  Stripe.version = ${JSON.stringify(STRIPE_JS_RELEASE)};
  window.Stripe = Stripe;
})();
`;
