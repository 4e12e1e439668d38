import type { Metadata, Viewport } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";

import { SiteHeader } from "@/components/layout/site-header";
import { parseTheme, THEME_COOKIE } from "@/components/layout/theme";
import { Toaster } from "@/components/ui/toast";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";

import "./globals.css";

export const metadata: Metadata = {
  title: "Agent Commerce Service",
  description: "Multi-store commerce for AI agents, speaking UCP over MCP and REST.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

// One layout for every page (issue: pages people trust): the header with the account menu, the theme from the
// buyer's cookie on <html> (rendered by the server, so the first paint is already right), a skip link.
export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  const buyer = await getBuyerSession();
  // one identity per browser session: a merchant is signed in only when no buyer is
  const merchant = buyer ? null : await getMerchantSession();
  return (
    <html lang="en" {...(theme === "system" ? {} : { "data-theme": theme })}>
      <body className="flex min-h-dvh flex-col">
        <a
          href="#main"
          className="bg-primary text-primary-foreground sr-only z-50 rounded-md px-3 py-2 focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
        >
          Skip to content
        </a>
        <Toaster>
          <SiteHeader
            address={buyer?.suiAddress ?? null}
            merchantName={merchant?.name ?? null}
            theme={theme}
          />
          <div className="flex-1">{children}</div>
          <footer className="text-muted-foreground border-t py-6 text-center text-xs">
            Agent Commerce Service · UCP over MCP and REST
          </footer>
        </Toaster>
      </body>
    </html>
  );
}
