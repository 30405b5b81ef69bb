import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { DataTable } from "../../components/data-table.tsx";
import { Empty, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { agentClient } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { stateWords } from "../../lib/transaction-words.ts";

/** The agent's transactions, as buyer or seller, newest first. */
export function AgentTransactions({ agentId }: { agentId: string }) {
  const transactions = useQuery({
    queryKey: ownerKeys.transactions(agentId),
    queryFn: () => agentClient(agentId).listTransactions({ agent_id: agentId, limit: 50 }),
  });
  return (
    <section aria-labelledby="transactions-heading">
      <h2 id="transactions-heading">Transactions</h2>
      <Loaded query={transactions} label="Loading transactions…">
        {(page) =>
          page.transactions.length === 0 ? (
            <Empty>No transactions yet.</Empty>
          ) : (
            <DataTable
              rows={page.transactions}
              rowKey={(transaction) => transaction.id}
              rowTestId="transaction-row"
              columns={[
                {
                  header: "Transaction",
                  rowHeader: true,
                  cell: (transaction) => (
                    <Link href={`/owner/transactions/${transaction.id}?agent=${agentId}`}>
                      {transaction.description || "Direct escrow"}
                    </Link>
                  ),
                },
                { header: "Role", cell: (transaction) => (transaction.buyer.id === agentId ? "buyer" : "seller") },
                {
                  header: "With",
                  cell: (transaction) => {
                    const other = transaction.buyer.id === agentId ? transaction.seller : transaction.buyer;
                    return other ? <Link href={`/agents/${other.id}`}>{other.name}</Link> : "—";
                  },
                },
                { header: "Amount", cell: (transaction) => <Usdc wei={transaction.amount_wei} /> },
                { header: "State", cell: (transaction) => stateWords(transaction) },
                { header: "Created", cell: (transaction) => <Time iso={transaction.created_at} /> },
              ]}
            />
          )
        }
      </Loaded>
    </section>
  );
}
