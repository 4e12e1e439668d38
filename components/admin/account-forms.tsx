"use client";

import { signIn } from "next-auth/react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { FormError, Notice } from "./form-messages";
import type { FormState } from "./form-state";

// The merchant account forms (sign in, sign up, forgot and reset password). Each posts to a server action that
// validates on the server (lib/accounts/schemas.ts) and returns the message of the field it refused, shown beside
// that field; sign-in goes through next-auth's credentials provider, which checks its own CSRF token.

const EMPTY: FormState = { ok: false, errors: {} };

type Action = (previous: FormState, data: FormData) => Promise<FormState>;

const MERCHANT_PROVIDER_ID = "merchant-password";

/** Signs in with next-auth and opens the admin; the same error for an unknown email and a wrong password. */
const useSignIn = () => {
  const router = useRouter();
  return async (email: string, password: string, next = "/admin"): Promise<string | null> => {
    const result = await signIn(MERCHANT_PROVIDER_ID, { email, password, redirect: false });
    // a throttled attempt says so (next-auth relays the thrown message); any other failure is the same answer
    if (result?.error?.startsWith("Too many")) return `${result.error}.`;
    if (!result || result.error) return "The email or the password is not right.";
    router.push(next);
    router.refresh();
    return null;
  };
};

export function SignInForm({ next = "/admin" }: { next?: string }) {
  const signInWith = useSignIn();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  return (
    <form
      className="grid gap-4"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        setPending(true);
        setError(await signInWith(String(data.get("email") ?? ""), String(data.get("password") ?? ""), next));
        setPending(false);
      }}
    >
      <FormError message={error ?? undefined} />
      <Field id="email" label="Email">
        {(control) => <Input {...control} name="email" type="email" autoComplete="username" required />}
      </Field>
      <Field id="password" label="Password">
        {(control) => (
          <Input {...control} name="password" type="password" autoComplete="current-password" required />
        )}
      </Field>
      <Button type="submit" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </Button>
      <p className="text-muted-foreground text-sm">
        <Link className="underline underline-offset-4" href="/admin/forgot-password">
          Forgot your password?
        </Link>{" "}
        · New here?{" "}
        <Link className="underline underline-offset-4" href="/admin/sign-up">
          Create an account
        </Link>
      </p>
    </form>
  );
}

export function SignUpForm({ action }: { action: Action }) {
  const signInWith = useSignIn();
  const [state, setState] = useState<FormState>(EMPTY);
  const [pending, setPending] = useState(false);
  return (
    <form
      className="grid gap-4"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        setPending(true);
        const result = await action(EMPTY, data);
        if (result.ok) {
          const failed = await signInWith(String(data.get("email")), String(data.get("password")));
          setState(failed ? { ok: false, errors: { form: failed } } : result);
        } else setState(result);
        setPending(false);
      }}
    >
      <FormError message={state.errors.form} />
      <Field id="name" label="Your name" error={state.errors.name}>
        {(control) => <Input {...control} name="name" autoComplete="name" required />}
      </Field>
      <Field id="email" label="Email" error={state.errors.email}>
        {(control) => <Input {...control} name="email" type="email" autoComplete="email" required />}
      </Field>
      <Field
        id="password"
        label="Password"
        hint="At least 12 characters; a phrase of a few words is fine."
        error={state.errors.password}
      >
        {(control) => (
          <Input {...control} name="password" type="password" autoComplete="new-password" required />
        )}
      </Field>
      <Button type="submit" disabled={pending}>
        {pending ? "Creating your account…" : "Create account"}
      </Button>
      <p className="text-muted-foreground text-sm">
        Already have an account?{" "}
        <Link className="underline underline-offset-4" href="/admin/sign-in">
          Sign in
        </Link>
      </p>
    </form>
  );
}

export function ForgotPasswordForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-4" noValidate>
      {state.ok ? <Notice>{state.message}</Notice> : <FormError message={state.errors.form} />}
      <Field id="email" label="Email of your account" error={state.errors.email}>
        {(control) => (
          <Input
            {...control}
            name="email"
            type="email"
            autoComplete="username"
            defaultValue={state.values?.email}
            required
          />
        )}
      </Field>
      <Button type="submit" disabled={pending}>
        {pending ? "Sending…" : "Send me a reset link"}
      </Button>
    </form>
  );
}

export function ResetPasswordForm({ action, token }: { action: Action; token: string }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  if (state.ok) {
    return (
      <div className="grid gap-4">
        <Notice>{state.message}</Notice>
        <Button asChild>
          <Link href="/admin/sign-in">Sign in</Link>
        </Button>
      </div>
    );
  }
  return (
    <form action={formAction} className="grid gap-4" noValidate>
      <FormError message={state.errors.token ?? state.errors.form} />
      <input type="hidden" name="token" value={token} />
      <Field id="password" label="New password" hint="At least 12 characters." error={state.errors.password}>
        {(control) => (
          <Input {...control} name="password" type="password" autoComplete="new-password" required />
        )}
      </Field>
      <Button type="submit" disabled={pending}>
        {pending ? "Saving…" : "Set the new password"}
      </Button>
    </form>
  );
}

/** Confirms the address a verification link was sent to (a button, so a mail scanner's visit uses nothing). */
export function VerifyEmailForm({ action, token }: { action: Action; token: string }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  if (state.ok) {
    return (
      <div className="grid gap-4">
        <Notice>{state.message}</Notice>
        <Button asChild className="justify-self-start">
          <Link href="/admin">Open the admin</Link>
        </Button>
      </div>
    );
  }
  return (
    <form action={formAction} className="grid gap-4">
      <FormError message={state.errors.form} />
      <input type="hidden" name="token" value={token} />
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Verifying…" : "Verify my email"}
      </Button>
    </form>
  );
}

/** Mails the signed-in account a new verification link. */
export function ResendVerificationForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-3">
      {state.ok ? <Notice>{state.message}</Notice> : <FormError message={state.errors.form} />}
      <Button type="submit" variant="outline" disabled={pending} className="justify-self-start">
        {pending ? "Sending…" : "Send me a new link"}
      </Button>
    </form>
  );
}

/** Accepts a team invitation with the signed-in account; the refusal (another address, unverified…) says why. */
export function AcceptInvitationForm({ action, token }: { action: Action; token: string }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  if (state.ok) {
    return (
      <div className="grid gap-4">
        <Notice>{state.message}</Notice>
        <Button asChild className="justify-self-start">
          <Link href={`/admin/stores/${encodeURIComponent(state.values?.store ?? "")}`}>Open the store</Link>
        </Button>
      </div>
    );
  }
  return (
    <form action={formAction} className="grid gap-4">
      <FormError message={state.errors.form} />
      <input type="hidden" name="token" value={token} />
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Joining…" : "Accept the invitation"}
      </Button>
    </form>
  );
}
