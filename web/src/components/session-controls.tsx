import { lazy, Suspense, useState } from "react";
import { errorText } from "../lib/errors.ts";
import { signOut, useSession } from "../lib/session.ts";
import { Hex } from "./address.tsx";

// The wallet (wagmi, viem) is loaded only when someone signs in.
const SignInDialog = lazy(() => import("../wallet/sign-in-dialog.tsx"));

/** "Sign in" (opens the wallet dialog) or the signed-in address and "Sign out". */
export function SessionControls() {
  const session = useSession();
  const [failure, setFailure] = useState<string>();
  if (session.status === "loading") return <span aria-busy="true">Session…</span>;
  if (session.status === "signed-out") return <SignInButton />;
  return (
    <span className="session">
      <span className="visually-hidden">Signed in as </span>
      <Hex value={session.address} />{" "}
      <button
        type="button"
        className="secondary"
        onClick={() => signOut().catch((error: unknown) => setFailure(errorText(error)))}
      >
        Sign out
      </button>
      {failure && <span role="alert">{failure}</span>}
    </span>
  );
}

/** Opens the sign-in dialog (loading the wallet code on the first click). */
export function SignInButton({ label = "Sign in" }: { label?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        {label}
      </button>
      {open && (
        <Suspense
          fallback={
            <dialog open aria-label="Sign in">
              <article aria-busy="true">Loading the wallet…</article>
            </dialog>
          }
        >
          <SignInDialog onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
