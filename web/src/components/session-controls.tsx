import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { errorText } from "../lib/errors.ts";
import { platformInfoQuery } from "../lib/platform-info.ts";
import { signOut, useSession } from "../lib/session.ts";
import { Hex } from "./address.tsx";
import { Modal } from "./modal.tsx";
import { ErrorNote, Loading } from "./states.tsx";

type SignInModule = typeof import("../wallet/sign-in-dialog.tsx");

// The wallet (wagmi, viem) is not in the first page's bundle: it loads when the browser is idle on a
// page that offers to sign in, or at the latest when someone points at, focuses or presses the button.
let signInModule: SignInModule | undefined;
const loadSignIn = () =>
  import("../wallet/sign-in-dialog.tsx").then((module) => {
    signInModule = module;
    return module;
  });

/**
 * The sign-in code, once loaded. Not React.lazy: a Suspense boundary holds content that arrives
 * soon after its fallback for 300 ms (React's throttle), which alone made the dialog wait.
 */
function useSignInModule(): { module?: SignInModule; failure?: unknown; retry: () => void } {
  const [module, setModule] = useState(signInModule);
  const [failure, setFailure] = useState<unknown>();
  // A failure stops the loading; retry clears it, which loads again.
  useEffect(() => {
    if (module || failure !== undefined) return;
    let current = true;
    loadSignIn().then(
      (loaded) => current && setModule(loaded),
      (error: unknown) => current && setFailure(error),
    );
    return () => {
      current = false;
    };
  }, [module, failure]);
  return {
    module,
    failure,
    retry: () => setFailure(undefined),
  };
}

/** Fetch ahead what the dialog needs: its code, the chain (GET /api/info) and the dev accounts. */
function prepareSignIn(queryClient: QueryClient) {
  // Both start at once; the dev accounts follow the chain (only the local chain has them).
  void queryClient.prefetchQuery(platformInfoQuery);
  loadSignIn()
    .then((module) => module.prefetchSignIn(queryClient))
    // A failure here is shown by the dialog itself, which asks again.
    .catch(() => undefined);
}

/** Loads the wallet's code once the page has settled, unless the person asked to save data. */
function usePreloadWhenIdle() {
  useEffect(() => {
    const connection = (navigator as Navigator & { connection?: { saveData?: boolean } }).connection;
    if (connection?.saveData) return;
    const load = () => void loadSignIn().catch(() => undefined);
    if ("requestIdleCallback" in window) {
      const handle = requestIdleCallback(load, { timeout: 3000 });
      return () => cancelIdleCallback(handle);
    }
    const handle = setTimeout(load, 1500);
    return () => clearTimeout(handle);
  }, []);
}

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

/**
 * Opens the sign-in dialog: a Modal drawn at once (the focus stays inside it; Escape or Close
 * closes it and the focus comes back to this button), whose inside arrives with the wallet's code.
 */
export function SignInButton({ label = "Sign in" }: { label?: string }) {
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  const titleId = useId();
  const prepare = () => prepareSignIn(queryClient);
  const close = () => setOpen(false);
  usePreloadWhenIdle();
  return (
    <>
      <button
        type="button"
        onPointerEnter={prepare}
        onFocus={prepare}
        onClick={(event) => {
          // Some browsers (Safari) do not focus a clicked button: the dialog gives the focus back to it.
          event.currentTarget.focus();
          prepare();
          setOpen(true);
        }}
      >
        {label}
      </button>
      {open && (
        <Modal labelledBy={titleId} onClose={close} className="sign-in-dialog">
          <article>
            <header>
              <button type="button" aria-label="Close" rel="prev" onClick={close} />
              <h2 id={titleId}>Sign in</h2>
            </header>
            <SignInContent onDone={close} />
          </article>
        </Modal>
      )}
    </>
  );
}

/** The dialog's inside: the wallet's code once here (at once, when it was preloaded). */
function SignInContent({ onDone }: { onDone: () => void }) {
  const { module, failure, retry } = useSignInModule();
  if (module) return <module.default onDone={onDone} />;
  if (failure !== undefined) return <ErrorNote error={failure} retry={retry} />;
  return <Loading label="Loading the wallet…" />;
}
