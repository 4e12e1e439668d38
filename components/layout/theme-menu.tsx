"use client";

import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Check, Monitor, Moon, Sun } from "lucide-react";
import { useState } from "react";

import { Button } from "@/components/ui/button";

import { THEME_COOKIE, type ThemeChoice } from "./theme";

const CHOICES = [
  { value: "system", label: "System", Icon: Monitor },
  { value: "light", label: "Light", Icon: Sun },
  { value: "dark", label: "Dark", Icon: Moon },
] as const;

const apply = (choice: ThemeChoice) => {
  const root = document.documentElement;
  if (choice === "system") {
    delete root.dataset.theme;
    document.cookie = `${THEME_COOKIE}=; path=/; max-age=0; samesite=lax`;
  } else {
    root.dataset.theme = choice;
    document.cookie = `${THEME_COOKIE}=${choice}; path=/; max-age=31536000; samesite=lax`;
  }
  // components that theme third-party widgets (the Stripe Payment Element) listen for this
  window.dispatchEvent(new Event("acs-theme-change"));
};

export function ThemeMenu({ initial }: { initial: ThemeChoice }) {
  const [choice, setChoice] = useState<ThemeChoice>(initial);
  const Current = CHOICES.find((c) => c.value === choice)?.Icon ?? Monitor;
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <Button variant="ghost" size="icon" aria-label={`Theme: ${choice}`} data-testid="theme-menu">
          <Current aria-hidden />
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={6}
          className="bg-card text-card-foreground z-50 min-w-36 rounded-md border p-1 shadow-lg"
        >
          <DropdownMenu.Label className="text-muted-foreground px-2 py-1.5 text-xs font-semibold">
            Theme
          </DropdownMenu.Label>
          <DropdownMenu.RadioGroup
            value={choice}
            onValueChange={(value) => {
              const next = value as ThemeChoice;
              setChoice(next);
              apply(next);
            }}
          >
            {CHOICES.map(({ value, label, Icon }) => (
              <DropdownMenu.RadioItem
                key={value}
                value={value}
                className="data-[highlighted]:bg-muted flex cursor-default items-center gap-2 rounded-sm px-2 py-1.5 text-sm outline-none"
              >
                <Icon aria-hidden className="size-4" />
                {label}
                <DropdownMenu.ItemIndicator className="ml-auto">
                  <Check aria-hidden className="size-4" />
                </DropdownMenu.ItemIndicator>
              </DropdownMenu.RadioItem>
            ))}
          </DropdownMenu.RadioGroup>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
