/**
 * Indexer lag under load: polls the chain head (eth_blockNumber: a block's receipts are served from
 * the moment it is the head) and the indexer's checkpoint every POLL_MS. For every block, the time
 * from first seeing it as the head to first seeing the indexer have it; and, at every poll, how many
 * blocks the indexer is behind the head.
 */
import { indexedBlock, type Query } from "@agent-marketplace/indexer";

const POLL_MS = 20;

export interface LagFigures {
  blocks: number;
  msP50: number;
  msP99: number;
  msMax: number;
  behindP50: number;
  behindP99: number;
  behindMax: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function headOf(rpcUrl: string): Promise<bigint> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
  });
  return BigInt(((await response.json()) as { result: string }).result);
}

export function monitorLag(rpcUrl: string, query: Query, chainId: number): { stop(): Promise<LagFigures> } {
  const seenAt = new Map<bigint, number>();
  const lagsMs: number[] = [];
  const behind: number[] = [];
  let lastHead: bigint | undefined;
  let running = true;
  const loop = (async () => {
    while (running) {
      const head = await headOf(rpcUrl);
      const now = performance.now();
      if (lastHead === undefined) lastHead = head;
      for (let block = lastHead + 1n; block <= head; block++) seenAt.set(block, now);
      lastHead = head > lastHead ? head : lastHead;
      const indexed = (await indexedBlock(query, chainId)) ?? 0n;
      const indexedAt = performance.now();
      for (const [block, at] of seenAt) {
        if (block > indexed) continue;
        lagsMs.push(indexedAt - at);
        seenAt.delete(block);
      }
      behind.push(Number(head - (indexed < head ? indexed : head)));
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const ms = lagsMs.sort((a, b) => a - b);
      const blocks = behind.sort((a, b) => a - b);
      return {
        blocks: ms.length,
        msP50: Math.round(percentile(ms, 50)),
        msP99: Math.round(percentile(ms, 99)),
        msMax: Math.round(ms.at(-1) ?? Number.NaN),
        behindP50: percentile(blocks, 50),
        behindP99: percentile(blocks, 99),
        behindMax: blocks.at(-1) ?? Number.NaN,
      };
    },
  };
}
