import type { Metadata } from 'next';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { Nav } from '@/components/layout/nav';
import { THEME_BOOT_SCRIPT } from '@/components/theme/theme';
import type { SessionInfo } from '@/lib/api-types';
import { currentUser } from '@/lib/server/auth';
import { consoleLinks } from '@/lib/server/links';
import { isReadOnly } from '@/lib/server/oxmq';
import './globals.css';
import { Providers } from './providers';

export const metadata: Metadata = {
  title: 'OxMQ console',
  description: 'Admin and monitoring console for the OxMQ job queue.',
};

// Every page depends on the session cookie.
export const dynamic = 'force-dynamic';

export default async function RootLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  // The nonce proxy.ts put in this request's Content-Security-Policy: the theme script needs it.
  const nonce = /'nonce-([^']+)'/.exec((await headers()).get('content-security-policy') ?? '')?.[1];
  const session: SessionInfo | null = user
    ? { ...user, readOnly: isReadOnly(), links: consoleLinks() }
    : null;
  return (
    // data-theme is set by the boot script before hydration; React must not fight it.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <Providers session={session}>
          <Nav />
          <main id="main">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
