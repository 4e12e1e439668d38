import type { ComponentProps } from "react";

import { NativeSelect } from "@/components/ui/select";
import type { CurrencyOption } from "@/lib/stores/currencies";

// The currency picker of the store forms: the browser's own select (typing "e" jumps to EUR), common currencies
// first. The options come from the server page (lib/stores/currencies.ts) so the browser's Intl never decides
// what is offered; a value the list lacks (a store made before) is still shown, so saving keeps it.

export type CurrencyOptions = { common: CurrencyOption[]; all: CurrencyOption[] };

export function CurrencySelect({
  options,
  value,
  ...props
}: { options: CurrencyOptions } & Omit<ComponentProps<"select">, "children">) {
  const label = (o: CurrencyOption) => `${o.code} — ${o.name}`;
  const current = value ?? props.defaultValue;
  const known = typeof current !== "string" || options.all.some((o) => o.code === current);
  return (
    <NativeSelect value={value} {...props}>
      {known ? null : <option value={String(current)}>{String(current)}</option>}
      <optgroup label="Common">
        {options.common.map((o) => (
          <option key={o.code} value={o.code}>
            {label(o)}
          </option>
        ))}
      </optgroup>
      <optgroup label="All currencies">
        {options.all.map((o) => (
          <option key={o.code} value={o.code}>
            {label(o)}
          </option>
        ))}
      </optgroup>
    </NativeSelect>
  );
}
