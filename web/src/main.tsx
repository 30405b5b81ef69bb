import "@picocss/pico/css/pico.min.css";
import "./styles.css";
import { MarketplaceError } from "@agent-marketplace/sdk";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.tsx";
import { ToastProvider } from "./components/toasts.tsx";
import { isStatus } from "./lib/errors.ts";
import { deskKeys, ownerKeys } from "./lib/query-keys.ts";
import { loadSession, sessionExpired, sessionStore } from "./lib/session.ts";

// Any 401 while signed in means the cookie's session is over (public routes never answer 401).
const onError = (error: unknown) => {
  if (isStatus(error, 401)) sessionExpired();
};

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal (4xx) will not change by asking again.
      retry: (count, error) => count < 2 && !(error instanceof MarketplaceError && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

sessionStore.onDrop(() => {
  queryClient.removeQueries({ queryKey: ownerKeys.all });
  queryClient.removeQueries({ queryKey: deskKeys.all });
});
void loadSession();

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <App />
      </ToastProvider>
    </QueryClientProvider>
  </StrictMode>,
);
