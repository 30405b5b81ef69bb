import { randomBytes } from "node:crypto";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket, USDC } from "../../../test/escrow.ts";
import {
  get,
  json,
  post,
  registerAgent,
  registerHosted,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../../test/harness.ts";

/*
 * Balances by agent id, the local faucet, and withdrawals out of hosted wallets, on the suite's
 * real chain. Sends nothing from dev accounts (the relayer pays the gas).
 */
let t: TestApp;
let market: Market;

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
});
afterAll(() => t.close());

const usdcOf = usdcBalance;
const freshAddress = () => getAddress(`0x${randomBytes(20).toString("hex")}`);

const hostedWithUsdc = (amount: bigint) => registerHosted(t.app, "hosted", amount);

describe("faucet and balances", () => {
  it("mints to any address; the balance by agent id reads it from the chain", async () => {
    const agent = await hostedWithUsdc(7n * USDC);
    const response = await get(t.app, `/api/wallet/balance?agent_id=${agent.id}`);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      agent_id: agent.id,
      address: agent.wallet,
      eth_wei: "0",
      usdc_wei: (7n * USDC).toString(),
      eth_formatted: "0.00",
      usdc_formatted: "7.00",
      // The live service's names of the same.
      wallet_address: agent.wallet,
      balance_wei: (7n * USDC).toString(),
      balance_usdc: "7.00",
    });
  });

  it("refuses bad input", async () => {
    for (const body of [
      { address: "0x12", usdc_wei: "1" },
      { address: freshAddress(), usdc_wei: "0" },
      { address: freshAddress(), usdc_wei: (1_000_001n * USDC).toString() },
      { address: freshAddress() },
      { address: freshAddress(), usdc_wei: 1 },
    ]) {
      expect((await post(t.app, "/api/dev/faucet", body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await get(t.app, "/api/wallet/balance?agent_id=nope")).status).toBe(400);
    expect((await get(t.app, "/api/wallet/balance?agent_id=6f1c2e9a-3b4d-4c5e-8f70-123456789abc")).status).toBe(404);
  });
});

describe("withdrawals", () => {
  it("a hosted agent sends USDC out without ETH; the withdrawal is listed as confirmed", async () => {
    const agent = await hostedWithUsdc(5n * USDC);
    const destination = freshAddress();
    const response = await post(
      t.app,
      "/api/wallet/withdraw",
      { destination_address: destination, amount_wei: (2n * USDC).toString() },
      agent.key,
    );
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({ destination_address: destination, amount_wei: "2000000", state: "CONFIRMED" });
    expect(await usdcOf(destination)).toBe(2n * USDC);
    expect(await usdcOf(agent.wallet)).toBe(3n * USDC);
    expect(await market.publicClient.getBalance({ address: agent.wallet })).toBe(0n);
    const list = await json(await get(t.app, "/api/wallet/withdrawals", agent.key));
    expect(list.withdrawals).toEqual([
      expect.objectContaining({ withdrawal_id: body.withdrawal_id, state: "CONFIRMED" }),
    ]);
  });

  it("402 when short, 400 for external agents and bad input, and nothing moves", async () => {
    const agent = await hostedWithUsdc(1n * USDC);
    const withdraw = (body: unknown, key = agent.key) => post(t.app, "/api/wallet/withdraw", body, key);
    const short = await withdraw({ destination_address: freshAddress(), amount_wei: (2n * USDC).toString() });
    expect(short.status).toBe(402);
    expect(await json(short)).toMatchObject({ shortfall_wei: "1000000", wallet_address: agent.wallet });
    const external = await registerAgent(t.app);
    expect((await withdraw({ destination_address: freshAddress(), amount_wei: "1" }, external.key)).status).toBe(400);
    for (const body of [
      { destination_address: agent.wallet, amount_wei: "1" },
      { destination_address: "nope", amount_wei: "1" },
      { destination_address: freshAddress(), amount_wei: "0" },
      { destination_address: freshAddress(), amount_wei: "-5" },
      { destination_address: freshAddress() },
    ]) {
      expect((await withdraw(body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(
      (await post(t.app, "/api/wallet/withdraw", { destination_address: freshAddress(), amount_wei: "1" })).status,
    ).toBe(401);
    expect(await usdcOf(agent.wallet)).toBe(1n * USDC);
    expect((await json(await get(t.app, "/api/wallet/withdrawals", agent.key))).withdrawals).toEqual([]);
  });
});
