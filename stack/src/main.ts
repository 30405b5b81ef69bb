/**
 * `pnpm start`: the whole marketplace on one machine.
 *
 *   Postgres   embedded (data in <DATA_DIR>/postgres, port PG_PORT), unless DATABASE_URL is set
 *   chain      a Hardhat node on 127.0.0.1:HARDHAT_PORT with the contracts deployed, unless RPC_URL is set
 *   indexer    `ponder start` on INDEXER_PORT, into a schema named after the build and the chain
 *   web app    web/dist, built again first when web/ or the SDK changed since the last build
 *   API        in the runner's process, on API_PORT, serving the web app at /; with API_PROCESSES=N
 *              (N > 1), N processes on that port, in a child process (api/src/cluster.ts)
 *
 * It runs until Ctrl-C or SIGTERM, then stops the API, the indexer, the node and Postgres in that
 * order and exits 0. If a part dies, it stops the rest and exits 1, naming the part's log (Postgres
 * and the indexer are first started again, RESTARTS_PER_MINUTE times a minute). Two processes do
 * it, for the reasons in runner.ts; each part is a module of parts/, run by supervisor.ts.
 */
import { fileURLToPath } from "node:url";
import { apiServer } from "./parts/api.ts";
import { externalChain, hardhatNode } from "./parts/chain.ts";
import { deployedContracts } from "./parts/contracts.ts";
import { ponderIndexer } from "./parts/indexer.ts";
import { embeddedPostgres, externalDatabase } from "./parts/postgres.ts";
import { webApp } from "./parts/web-app.ts";
import { readyMessage } from "./ready-message.ts";
import { isRunner, runStack, superviseRunner } from "./runner.ts";

if (!isRunner()) {
  superviseRunner(fileURLToPath(import.meta.url));
} else {
  await runStack((settings) => {
    const database = settings.databaseUrl ? externalDatabase(settings.databaseUrl) : embeddedPostgres(settings);
    const chain = settings.rpcUrl ? externalChain(settings.rpcUrl) : hardhatNode(settings);
    const contracts = deployedContracts(settings, chain);
    const indexer = ponderIndexer(settings, { database, contracts });
    const api = apiServer(settings, { database, contracts, indexer });
    return {
      parts: [webApp(), database, chain, contracts, indexer, api],
      readyMessage: () => readyMessage(settings, { database, chain, contracts, indexer, api }),
    };
  });
}
