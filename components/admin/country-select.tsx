import type { ComponentProps } from "react";

import { NativeSelect } from "@/components/ui/select";
import type { CountryOption } from "@/lib/checkout/countries";

// The country picker of the store forms: the browser's own select (typing "ge" jumps to Germany), by name. The
// options come from the server page (lib/checkout/countries.ts), the list destinations are checked against.

export function CountrySelect({
  options,
  anywhere = false,
  placeholder,
  ...props
}: {
  options: readonly CountryOption[];
  /** Offer "Anywhere" (the value "*"), for a shipping rate that applies to every destination. */
  anywhere?: boolean;
  /** An empty first choice, for a field that starts unset. */
  placeholder?: string;
} & Omit<ComponentProps<"select">, "children">) {
  const current = props.value ?? props.defaultValue;
  const known =
    typeof current !== "string" ||
    current === "" ||
    (anywhere && current === "*") ||
    options.some((o) => o.code === current);
  return (
    <NativeSelect {...props}>
      {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
      {known ? null : <option value={String(current)}>{String(current)}</option>}
      {anywhere ? <option value="*">Anywhere (every other country)</option> : null}
      {options.map((o) => (
        <option key={o.code} value={o.code}>
          {o.name}
        </option>
      ))}
    </NativeSelect>
  );
}
