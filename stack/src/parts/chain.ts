/**
 * The chain: a Hardhat node (chain 31337) on 127.0.0.1:HARDHAT_PORT, or the developer's at
 * RPC_URL (nothing to start then). The contracts are deployed by the next part (contracts.ts).
 */
import type { LocalNode } from "@agent-marketplace/contracts/local-chain";
import { type Settings, shown } from "../settings.ts";
import { type Part, StartError, within } from "../supervisor.ts";

export interface Chain extends Part {
  readonly rpcUrl: string;
  /** The node's log, when the stack runs the node. */
  readonly nodeLog?: string;
}

/** How long the node has to stop on SIGTERM before it is killed. */
const NODE_STOP_MS = 10_000;

export function hardhatNode(settings: Settings): Chain {
  const log = settings.logs.node;
  const port = settings.ports.node;
  return {
    name: "The Hardhat node",
    shortName: "chain",
    log,
    nodeLog: log,
    ports: [{ name: "Hardhat node", variable: "HARDHAT_PORT", port }],
    rpcUrl: `http://127.0.0.1:${port}`,
    async start() {
      const { startHardhatNode } = await import("@agent-marketplace/contracts/local-chain");
      console.log(`Starting a Hardhat node on port ${port}...`);
      let node: LocalNode;
      try {
        node = await startHardhatNode({ port, logFile: log });
      } catch (error) {
        throw new StartError(`The Hardhat node did not start: ${(error as Error).message}; see ${shown(log)}`);
      }
      return {
        process: node.process,
        async stop() {
          if (
            !(await within(
              node.stop().then(() => true),
              NODE_STOP_MS,
            ))
          )
            node.process.kill("SIGKILL");
        },
      };
    },
  };
}

export function externalChain(rpcUrl: string): Chain {
  return { name: "The chain at RPC_URL", shortName: "chain", rpcUrl, start: async () => ({}) };
}
