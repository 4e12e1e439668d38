"use client";

import * as SelectPrimitive from "@radix-ui/react-select";
import { Check, ChevronDown } from "lucide-react";
import { useLayoutEffect, useRef, type ComponentProps } from "react";

import { cn } from "./cn";
import { inputClass } from "./input";

// Two selects: NativeSelect (the browser's own, best on phones and inside GET forms that work without script) and
// Select, a Radix listbox for places that need styled options. Both look the same closed.

/**
 * A form action resets its form when it ends (React 19 `<form action>`), and the browser's reset puts a select on
 * the option that was selected when the page was built: a controlled select then shows another option than React
 * holds (and posts it next time), and an uncontrolled one loses the value the refused form handed back as its new
 * `defaultValue` (React follows an input's changed `defaultValue`, not a select's). This puts both back, as an
 * input behaves.
 */
export function NativeSelect({ className, children, ref, ...props }: ComponentProps<"select">) {
  const own = useRef<HTMLSelectElement | null>(null);
  const lastDefault = useRef<string | undefined>(undefined);
  const { value, defaultValue, multiple } = props;
  useLayoutEffect(() => {
    const node = own.current;
    if (!node || multiple) return;
    if (value !== undefined) {
      if (node.value !== String(value)) node.value = String(value);
      return;
    }
    if (defaultValue === undefined) return;
    const wanted = String(defaultValue);
    if (lastDefault.current !== undefined && lastDefault.current !== wanted) {
      for (const option of node.options) option.defaultSelected = option.value === wanted;
      node.value = wanted;
    }
    lastDefault.current = wanted;
  });
  return (
    <div className="relative">
      <select
        ref={(node) => {
          own.current = node;
          if (typeof ref === "function") return ref(node);
          if (ref) ref.current = node;
        }}
        className={cn(inputClass, "appearance-none pr-9", className)}
        {...props}
      >
        {children}
      </select>
      <ChevronDown
        aria-hidden
        className="text-muted-foreground pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2"
      />
    </div>
  );
}

export const Select = SelectPrimitive.Root;
export const SelectValue = SelectPrimitive.Value;

export function SelectTrigger({
  className,
  children,
  ...props
}: ComponentProps<typeof SelectPrimitive.Trigger>) {
  return (
    <SelectPrimitive.Trigger
      className={cn(inputClass, "items-center justify-between gap-2", className)}
      {...props}
    >
      {children}
      <SelectPrimitive.Icon asChild>
        <ChevronDown aria-hidden className="text-muted-foreground size-4" />
      </SelectPrimitive.Icon>
    </SelectPrimitive.Trigger>
  );
}

export function SelectContent({
  className,
  children,
  position = "popper",
  ...props
}: ComponentProps<typeof SelectPrimitive.Content>) {
  return (
    <SelectPrimitive.Portal>
      <SelectPrimitive.Content
        position={position}
        sideOffset={4}
        className={cn(
          "bg-card text-card-foreground z-50 max-h-72 min-w-[var(--radix-select-trigger-width)] overflow-hidden rounded-md border shadow-lg",
          className,
        )}
        {...props}
      >
        <SelectPrimitive.Viewport className="p-1">{children}</SelectPrimitive.Viewport>
      </SelectPrimitive.Content>
    </SelectPrimitive.Portal>
  );
}

export function SelectItem({ className, children, ...props }: ComponentProps<typeof SelectPrimitive.Item>) {
  return (
    <SelectPrimitive.Item
      className={cn(
        "data-[highlighted]:bg-muted relative flex cursor-default items-center rounded-sm py-2 pr-8 pl-2 text-sm outline-none select-none data-[disabled]:opacity-50",
        className,
      )}
      {...props}
    >
      <SelectPrimitive.ItemText>{children}</SelectPrimitive.ItemText>
      <SelectPrimitive.ItemIndicator className="absolute right-2">
        <Check aria-hidden className="size-4" />
      </SelectPrimitive.ItemIndicator>
    </SelectPrimitive.Item>
  );
}
