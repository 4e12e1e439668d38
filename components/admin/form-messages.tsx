import type { ReactNode } from "react";

// What a form says about itself as a whole: a refusal (announced as an alert) or a notice (a polite status). Field
// errors sit beside their fields (components/ui/field.tsx).

export function FormError({ message }: { message?: string | null }) {
  return message ? (
    <p role="alert" className="border-destructive/40 text-destructive rounded-md border px-3 py-2 text-sm">
      {message}
    </p>
  ) : null;
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="bg-muted rounded-md px-3 py-2 text-sm">
      {children}
    </p>
  );
}
