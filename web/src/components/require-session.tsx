import type { ReactNode } from "react";
import { useSession } from "../lib/session.ts";
import { SignInButton } from "./session-controls.tsx";
import { Loading } from "./states.tsx";

/** Its children for a signed-in owner; otherwise why and a Sign in button. */
export function RequireSession({ reason, children }: { reason: string; children: ReactNode }) {
  const session = useSession();
  if (session.status === "loading") return <Loading label="Checking your session…" />;
  if (session.status === "signed-out") {
    return (
      <>
        <p>{reason}</p>
        <SignInButton />
      </>
    );
  }
  return <>{children}</>;
}
