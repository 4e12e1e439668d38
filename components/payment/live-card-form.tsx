"use client";

import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import type { Appearance, Stripe, StripeError } from "@stripe/stripe-js";
// the "pure" entry of the official loader injects Stripe.js only when loadStripe is called (not on import), so
// test-mode pages, which share this bundle, never load it
import { loadStripe } from "@stripe/stripe-js/pure";
import { Lock } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";

import { Button } from "@/components/ui/button";

// The live card step of the hosted payment page: Stripe.js through the official loader, the Payment
// Element for the PaymentIntent's client secret, and confirmPayment in the browser. Card data never reaches our
// server. Without a redirect the page then asks the server to read the provider's state (action=refresh);
// when the bank's 3-D Secure step redirects, Stripe sends the buyer back to return_url with ?payment_intent=….

type Props = {
  publishableKey: string;
  clientSecret: string;
  /** The page's own continue URL: where Stripe returns the buyer after a redirect. */
  returnUrl: string;
  /** The submit route (form target) of this page. */
  action: string;
  /** The amount charged, as the page shows it (the button says "Pay $51.15"). */
  amountText: string;
};

/**
 * The Payment Element themed like the page (Stripe's Appearance API): our colour tokens read from the page's CSS
 * variables, Stripe's "night" base in the dark theme. Runs in the browser only.
 */
const pageAppearance = (): Appearance => {
  const css = getComputedStyle(document.documentElement);
  const token = (name: string) => css.getPropertyValue(`--${name}`).trim();
  const dark = css.colorScheme.includes("dark");
  return {
    theme: dark ? "night" : "stripe",
    variables: {
      colorPrimary: token("primary"),
      colorBackground: token("background"),
      colorText: token("foreground"),
      colorTextSecondary: token("muted-foreground"),
      colorDanger: token("destructive"),
      fontFamily: css.fontFamily,
      borderRadius: "6px",
    },
    rules: { ".Input": { borderColor: token("input") }, ".Label": { fontWeight: "500" } },
  };
};

/** Errors in plain words: Stripe's card and validation messages are written for buyers; the rest are not. */
const plainError = (error: StripeError): string =>
  (error.type === "card_error" || error.type === "validation_error") && error.message
    ? error.message
    : "The payment could not be completed. Please try again, or use another card.";

const LOAD_FAILED =
  "The secure card form could not be loaded. Check your connection and reload this page to try again.";

// Room reserved for the Payment Element while Stripe.js loads, so the page does not jump when it appears; released
// once it is ready, so no empty band is left under a shorter form.
const ELEMENT_MIN_HEIGHT = "min-h-[220px]";

function CardStep({ returnUrl, action, amountText }: Omit<Props, "publishableKey" | "clientSecret">) {
  const stripe = useStripe();
  const elements = useElements();
  const [ready, setReady] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const refresh = useRef<HTMLFormElement>(null);

  const pay = async (event: FormEvent) => {
    event.preventDefault();
    if (!stripe || !elements || busy) return;
    setBusy(true);
    setError(null);
    try {
      const result = await stripe.confirmPayment({
        elements,
        confirmParams: { return_url: returnUrl },
        redirect: "if_required",
      });
      if (result.error) {
        setError(plainError(result.error));
        setBusy(false);
        return;
      }
      // confirmed without a redirect: the server reads the PaymentIntent from Stripe and finishes the order
      refresh.current?.submit();
    } catch {
      setError("The payment could not be completed. Please try again.");
      setBusy(false);
    }
  };

  return (
    <>
      <form onSubmit={(e) => void pay(e)} aria-label="Card payment" aria-busy={busy} className="grid gap-3">
        <div className={ready ? undefined : ELEMENT_MIN_HEIGHT} role="group" aria-label="Card details">
          <PaymentElement
            onReady={() => setReady(true)}
            onLoadError={() => setError(LOAD_FAILED)}
            options={{ layout: "tabs" }}
          />
        </div>
        <p role="alert" className="text-destructive text-sm font-medium empty:hidden" data-testid="pay-error">
          {error ?? ""}
        </p>
        <Button type="submit" size="lg" className="w-full" disabled={!stripe || !elements || !ready || busy}>
          <Lock aria-hidden />
          {busy ? "Paying…" : `Pay ${amountText}`}
        </Button>
      </form>
      <form ref={refresh} method="post" action={action} hidden>
        <input type="hidden" name="action" value="refresh" />
      </form>
    </>
  );
}

export function LiveCardForm({ publishableKey, clientSecret, ...step }: Props) {
  const [loadFailed, setLoadFailed] = useState(false);
  const [appearance, setAppearance] = useState<Appearance | undefined>(undefined);
  useEffect(() => {
    // the theme can change while the page is open (the header's theme menu, or the system setting)
    const update = () => setAppearance(pageAppearance());
    update();
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    media.addEventListener("change", update);
    window.addEventListener("acs-theme-change", update);
    return () => {
      media.removeEventListener("change", update);
      window.removeEventListener("acs-theme-change", update);
    };
  }, []);
  // loadStripe injects https://js.stripe.com/<release>/stripe.js once (on the server it resolves to null); it
  // rejects when the script cannot load. Created once per page: Elements must keep the same stripe prop.
  const [stripe] = useState<Promise<Stripe | null>>(() =>
    loadStripe(publishableKey).catch(() => {
      setLoadFailed(true);
      return null;
    }),
  );

  if (loadFailed) {
    return (
      <p role="alert" className="text-destructive text-sm font-medium" data-testid="pay-error">
        {LOAD_FAILED}
      </p>
    );
  }
  return (
    <Elements stripe={stripe} options={{ clientSecret, ...(appearance ? { appearance } : {}) }}>
      <CardStep {...step} />
    </Elements>
  );
}
