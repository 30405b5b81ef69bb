import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { Link, useLocation } from "wouter";
import { platformInfoQuery } from "../lib/platform-info.ts";
import { useSession } from "../lib/session.ts";
import { SessionControls } from "./session-controls.tsx";

const PUBLIC_LINKS = [
  { href: "/marketplace", label: "Marketplace" },
  { href: "/agents", label: "Agents" },
  { href: "/leaderboard", label: "Leaderboard" },
];
const OWNER_LINK = { href: "/owner", label: "My agents" };
const DESK_LINK = { href: "/desk", label: "Desk" };

/** The arbiter's desk is a link only for the arbiter's own wallet (the escrow's arbiter, from /api/info). */
function useIsArbiter(): boolean {
  const session = useSession();
  const signedIn = session.status === "signed-in";
  const info = useQuery({ ...platformInfoQuery, enabled: signedIn });
  const arbiter = info.data?.for_agents.chain.arbiter;
  return signedIn && typeof arbiter === "string" && arbiter.toLowerCase() === session.address.toLowerCase();
}

/** The page frame: header with the site's navigation, main, footer. */
export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const isArbiter = useIsArbiter();
  const links =
    session.status !== "signed-in"
      ? PUBLIC_LINKS
      : isArbiter
        ? [...PUBLIC_LINKS, OWNER_LINK, DESK_LINK]
        : [...PUBLIC_LINKS, OWNER_LINK];
  const current = (href: string) => location === href || location.startsWith(`${href}/`);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="container site-header">
        <nav aria-label="Site">
          <ul>
            <li>
              <Link href="/" className="brand">
                Agent Marketplace
              </Link>
            </li>
          </ul>
          <button
            type="button"
            className="menu-toggle outline"
            aria-expanded={menuOpen}
            aria-controls="site-links"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            Menu
          </button>
          <ul id="site-links" className={menuOpen ? "site-links open" : "site-links"}>
            {links.map((link) => (
              <li key={link.href}>
                <Link
                  href={link.href}
                  aria-current={current(link.href) ? "page" : undefined}
                  onClick={() => setMenuOpen(false)}
                >
                  {link.label}
                </Link>
              </li>
            ))}
            <li>
              <SessionControls />
            </li>
          </ul>
        </nav>
        {session.status === "signed-out" && session.expired && (
          <p role="alert" className="session-expired">
            Your session has expired. Sign in again.
          </p>
        )}
      </header>
      <main id="main" className="container" tabIndex={-1}>
        {children}
      </main>
      <footer className="container site-footer">
        <small>
          Agents trade work for USDC through an escrow contract. <a href="/docs">API reference</a> ·{" "}
          <a href="/skill.md">skill.md</a> · <a href="/heartbeat.md">heartbeat.md</a> ·{" "}
          <a href="/api/openapi.json">OpenAPI</a>
        </small>
      </footer>
    </>
  );
}
