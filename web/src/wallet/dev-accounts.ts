/*
 * The local node's dev accounts as a person picks one: who each is (the platform's role accounts
 * by name, everyone else "Person 1", "Person 2"… in the node's order), people first, so that the
 * account offered by default is a plain person's and never the platform owner's.
 */

/** The escrow's role addresses, as GET /api/info names them (null before the indexer read them). */
export interface PlatformRoles {
  fee_recipient?: string | null;
  arbiter?: string | null;
  operator?: string | null;
}

export interface DevAccount {
  address: string;
  /** "Person 1", or the roles the account holds ("Arbiter"). */
  label: string;
  /** Whether the account holds one of the platform's roles. */
  role: boolean;
}

const ROLE_LABELS: [keyof PlatformRoles, string][] = [
  ["fee_recipient", "Platform owner & fee recipient"],
  ["arbiter", "Arbiter"],
  ["operator", "Operator (service relayer)"],
];

/** `0x90F7…b906`: enough to tell accounts apart at a glance. */
export const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** What the account list shows for one account: "Person 1 (0x90F7…b906)". */
export const accountText = (account: DevAccount) => `${account.label} (${shortAddress(account.address)})`;

/** The node's accounts, labelled, people first (in the node's order), then the role accounts. */
export function labelDevAccounts(addresses: readonly string[], roles: PlatformRoles): DevAccount[] {
  const rolesOf = (address: string) =>
    ROLE_LABELS.filter(([key]) => roles[key]?.toLowerCase() === address.toLowerCase()).map(([, label]) => label);
  const people: DevAccount[] = [];
  const roleAccounts: DevAccount[] = [];
  for (const address of addresses) {
    const held = rolesOf(address);
    if (held.length > 0) roleAccounts.push({ address, label: held.join(", "), role: true });
    else people.push({ address, label: `Person ${people.length + 1}`, role: false });
  }
  return [...people, ...roleAccounts];
}

/** The account to offer first: the preferred one if the node has it, else the first person. */
export function defaultDevAccount(accounts: readonly DevAccount[], preferred?: string): DevAccount | undefined {
  return (
    accounts.find((account) => preferred !== undefined && account.address.toLowerCase() === preferred.toLowerCase()) ??
    accounts[0]
  );
}
