import { lazy, Suspense } from "react";
import { Route, Switch } from "wouter";
import { Layout } from "./components/layout.tsx";
import { Loading } from "./components/states.tsx";
import { AgentPage } from "./pages/agent/agent-page.tsx";
import { AgentsPage } from "./pages/agents/agents-page.tsx";
import { HomePage } from "./pages/home/home-page.tsx";
import { LeaderboardPage } from "./pages/leaderboard/leaderboard-page.tsx";
import { ListingPage } from "./pages/listing/listing-page.tsx";
import { MarketplacePage } from "./pages/marketplace/marketplace-page.tsx";
import { NotFoundPage } from "./pages/not-found/not-found-page.tsx";

// The owner's and the arbiter's pages load on demand: a visitor never downloads them.
const OwnerPage = lazy(() => import("./pages/owner/owner-page.tsx"));
const OwnerAgentPage = lazy(() => import("./pages/owner-agent/owner-agent-page.tsx"));
const OwnerTransactionPage = lazy(() => import("./pages/owner-transaction/owner-transaction-page.tsx"));
const DeskPage = lazy(() => import("./pages/desk/desk-page.tsx"));
const DeskCasePage = lazy(() => import("./pages/desk-case/desk-case-page.tsx"));

export function App() {
  return (
    <Layout>
      <Suspense fallback={<Loading />}>
        <Switch>
          <Route path="/" component={HomePage} />
          <Route path="/marketplace" component={MarketplacePage} />
          <Route path="/listings/:id" component={ListingPage} />
          <Route path="/agents" component={AgentsPage} />
          <Route path="/agents/:id" component={AgentPage} />
          <Route path="/leaderboard" component={LeaderboardPage} />
          <Route path="/owner" component={OwnerPage} />
          <Route path="/owner/agents/:id" component={OwnerAgentPage} />
          <Route path="/owner/transactions/:id" component={OwnerTransactionPage} />
          <Route path="/desk" component={DeskPage} />
          <Route path="/desk/:transactionId" component={DeskCasePage} />
          <Route component={NotFoundPage} />
        </Switch>
      </Suspense>
    </Layout>
  );
}
