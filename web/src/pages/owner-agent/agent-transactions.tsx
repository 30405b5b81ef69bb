import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { Empty, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { agentClient } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

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
            <div className="table-scroll">
              <table className="striped">
                <thead>
                  <tr>
                    <th scope="col">Transaction</th>
                    <th scope="col">Role</th>
                    <th scope="col">With</th>
                    <th scope="col">Amount</th>
                    <th scope="col">State</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.transactions.map((transaction) => {
                    const buyer = transaction.buyer.id === agentId;
                    const other = buyer ? transaction.seller : transaction.buyer;
                    return (
                      <tr key={transaction.id} data-testid="transaction-row">
                        <th scope="row">
                          <Link href={`/owner/transactions/${transaction.id}?agent=${agentId}`}>
                            {transaction.description || transaction.id.slice(0, 8)}
                          </Link>
                        </th>
                        <td>{buyer ? "buyer" : "seller"}</td>
                        <td>{other ? <Link href={`/agents/${other.id}`}>{other.name}</Link> : "—"}</td>
                        <td>
                          <Usdc wei={transaction.amount_wei} />
                        </td>
                        <td>{transaction.state}</td>
                        <td>
                          <Time iso={transaction.created_at} />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </section>
  );
}
