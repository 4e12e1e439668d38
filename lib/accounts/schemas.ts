import { z } from "zod";

// The account forms' rules, shared by the server actions and their tests (one schema per form, checked on the
// server; the pages show each issue beside its field).

/** An email address as typed: trimmed and lower-cased, then checked. */
export const EmailAddressSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "An email address has at most 254 characters")
  .pipe(z.email({ error: "Enter an email address such as you@example.com" }));

/** NIST SP 800-63B: length over composition rules; a passphrase is fine. */
const newPassword = z.string().min(12, "Use at least 12 characters").max(200, "Use at most 200 characters");

export const SignUpSchema = z.strictObject({
  name: z.string().trim().min(1, "Enter your name").max(100, "Use at most 100 characters"),
  email: EmailAddressSchema,
  password: newPassword,
});
export type SignUpInput = z.infer<typeof SignUpSchema>;

export const SignInSchema = z.strictObject({
  email: EmailAddressSchema,
  password: z.string().min(1, "Enter your password").max(200),
});

export const ResetRequestSchema = z.strictObject({ email: EmailAddressSchema });

export const ResetConfirmSchema = z.strictObject({
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "This reset link is not valid: ask for a new one"),
  password: newPassword,
});

/** Field → first message, for a form to show beside its fields. */
export const fieldErrors = (error: z.ZodError): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "form");
    out[field] ??= issue.message;
  }
  return out;
};
