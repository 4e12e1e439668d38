"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

import { formatMoney } from "@/components/ui/format";

// The dashboard's charts (Recharts). Each chart is a picture of the table printed beside it (the accessible text
// alternative), so the drawing itself is hidden from assistive technology and kept out of the tab order. Values are
// plotted in minor units and labelled through formatMoney (integer arithmetic), never divided into floats.

type Point = Record<string, string | number>;

const CHART_HEIGHT = 220;

export function SalesPerDayChart({
  data,
  currency,
  locale,
}: {
  data: Point[];
  currency: string;
  locale: string;
}) {
  return (
    <div aria-hidden="true" className="h-[220px] w-full min-w-0 overflow-hidden">
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <LineChart data={data} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" className="stroke-border" />
          <XAxis
            dataKey="day"
            tick={{ fontSize: 11 }}
            tickFormatter={(d: string) => d.slice(5)}
            minTickGap={16}
          />
          <YAxis
            tick={{ fontSize: 11 }}
            width={72}
            tickFormatter={(v: number) => formatMoney(v, currency, locale)}
          />
          <Tooltip formatter={(v) => formatMoney(Number(v), currency, locale)} />
          <Line
            type="monotone"
            dataKey="salesMinor"
            name="Sales"
            stroke="var(--color-primary)"
            strokeWidth={2}
            dot={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

export function SalesBarChart({
  data,
  category,
  currency,
  locale,
}: {
  data: Point[];
  category: string;
  currency: string;
  locale: string;
}) {
  return (
    <div aria-hidden="true" className="h-[220px] w-full min-w-0 overflow-hidden">
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <BarChart data={data} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" className="stroke-border" />
          <XAxis dataKey={category} tick={{ fontSize: 11 }} interval={0} />
          <YAxis
            tick={{ fontSize: 11 }}
            width={72}
            tickFormatter={(v: number) => formatMoney(v, currency, locale)}
          />
          <Tooltip formatter={(v) => formatMoney(Number(v), currency, locale)} />
          <Bar dataKey="salesMinor" name="Sales" fill="var(--color-primary)" />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function ConversionChart({ checkouts, converted }: { checkouts: number; converted: number }) {
  const data = [
    { step: "Checkouts", count: checkouts },
    { step: "Orders", count: converted },
  ];
  return (
    <div aria-hidden="true" className="h-[220px] w-full min-w-0 overflow-hidden">
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <BarChart
          data={data}
          layout="vertical"
          accessibilityLayer={false}
          margin={{ top: 8, right: 16, bottom: 0, left: 8 }}
        >
          <CartesianGrid strokeDasharray="3 3" className="stroke-border" />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
          <YAxis type="category" dataKey="step" tick={{ fontSize: 11 }} width={80} />
          <Tooltip />
          <Bar dataKey="count" name="Count" fill="var(--color-primary)" />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
