/**
 * The rehearsal's database: the Postgres server at DATABASE_URL when it is set (nothing is started
 * then, and the server is not killed), else Debian's `postgresql` server, installed with apt-get
 * where it is missing, running a cluster of the rehearsal's own on a port of its own: a server
 * process like the one an operator runs, not the embedded one `pnpm start` uses.
 *
 * Postgres refuses to run as root: as root, the cluster belongs to the `postgres` user Debian's
 * package creates, in a folder of the system's temporary directory that user can reach.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

export interface PostgresServer {
  /** postgres://… of the rehearsal's database. */
  url: string;
  /** Whether this rehearsal started the server (and may kill it). */
  owned: boolean;
  /** The postmaster's pid (owned servers only). */
  pid(): number | undefined;
  /** SIGKILL the postmaster, as a crash would; `start` recovers it. */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const DEBIAN_POSTGRES = "/usr/lib/postgresql";
const DATABASE = "marketplace";
const ROLE = "marketplace";

/** The newest Debian Postgres whose server binaries are installed, or undefined. */
function debianBinDir(): string | undefined {
  if (!existsSync(DEBIAN_POSTGRES)) return undefined;
  const versions = readdirSync(DEBIAN_POSTGRES)
    .filter((version) => existsSync(path.join(DEBIAN_POSTGRES, version, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(DEBIAN_POSTGRES, versions[0], "bin");
}

const isRoot = () => process.getuid?.() === 0;

/** apt-get install postgresql (as root, or through sudo without a password). */
function installDebianPostgres(): string {
  console.log("Postgres server not found: installing Debian's postgresql package...");
  const sudo = isRoot() ? [] : ["sudo", "-n"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [
    ["apt-get", "update", "-qq"],
    ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "postgresql"],
  ]) {
    const [command, ...rest] = [...sudo, ...args] as [string, ...string[]];
    const result = spawnSync(command, rest, { env, stdio: "inherit" });
    if (result.status !== 0) {
      throw new Error(
        `${args.join(" ")} failed (${result.status ?? result.error?.message}): install Postgres yourself, or set DATABASE_URL to a server of yours`,
      );
    }
  }
  const bin = debianBinDir();
  if (!bin) throw new Error(`postgresql installed, but no server under ${DEBIAN_POSTGRES}`);
  return bin;
}

/** Runs a Postgres program as the cluster's owner (the `postgres` user when we are root). */
function asOwner(program: string, args: string[], options: { quiet?: boolean } = {}) {
  const [command, rest] = isRoot() ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args];
  return execFileSync(command, rest, { stdio: options.quiet ? "pipe" : ["ignore", "pipe", "pipe"], encoding: "utf8" });
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function until(check: () => Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function postgresServer(options: { dataDir: string; port: number }): Promise<PostgresServer> {
  const given = process.env.DATABASE_URL;
  if (given) {
    if (!(await answers(given))) throw new Error("DATABASE_URL does not answer");
    console.log("Postgres: the server at DATABASE_URL");
    const none = async () => {};
    return { url: given, owned: false, pid: () => undefined, kill: none, start: none, stop: none };
  }
  const bin = debianBinDir() ?? installDebianPostgres();
  const version = execFileSync(path.join(bin, "postgres"), ["--version"], { encoding: "utf8" }).trim();
  // The postgres user must reach the cluster's folder: as root, one of the system's temporary folders.
  const clusterDir = isRoot()
    ? mkdtempSync(path.join(tmpdir(), "marketplace-rehearsal-pg-"))
    : path.join(options.dataDir, "postgres");
  rmSync(clusterDir, { recursive: true, force: true });
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  const password = randomBytes(18).toString("base64url");
  const passwordFile = path.join(clusterDir, "..", `${path.basename(clusterDir)}.pw`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (isRoot()) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
    chownSync(clusterDir, uid, gid);
    chownSync(passwordFile, uid, gid);
  }
  asOwner(path.join(bin, "initdb"), [
    "-D",
    clusterDir,
    "-U",
    ROLE,
    `--pwfile=${passwordFile}`,
    "--auth-local=peer",
    "--auth-host=scram-sha-256",
    "--encoding=UTF8",
    "--no-instructions",
  ]);
  rmSync(passwordFile, { force: true });
  const url = `postgres://${ROLE}:${password}@127.0.0.1:${options.port}/${DATABASE}`;
  const adminUrl = `postgres://${ROLE}:${password}@127.0.0.1:${options.port}/postgres`;
  const logFile = path.join(clusterDir, "server.log");
  const pgCtl = (args: string[]) => asOwner(path.join(bin, "pg_ctl"), ["-D", clusterDir, ...args], { quiet: true });
  let postmaster: number | undefined;

  async function start() {
    pgCtl(["-l", logFile, "-o", `-p ${options.port} -k ${clusterDir} -c listen_addresses=127.0.0.1`, "-w", "start"]);
    postmaster = Number(asOwner("head", ["-1", path.join(clusterDir, "postmaster.pid")], { quiet: true }).trim());
    await until(() => answers(adminUrl), 60_000, "Postgres did not answer");
  }
  await start();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  console.log(`Postgres: ${version}, a server of its own on port ${options.port}`);

  return {
    url,
    owned: true,
    pid: () => postmaster,
    async kill() {
      if (postmaster === undefined) return;
      process.kill(postmaster, "SIGKILL");
      // Its backends notice the postmaster is gone and exit; the next start recovers from the WAL.
      await until(async () => !alive(postmaster as number), 30_000, "the postmaster did not exit");
      await new Promise((resolve) => setTimeout(resolve, 500));
      postmaster = undefined;
    },
    start,
    async stop() {
      try {
        pgCtl(["-m", "fast", "-w", "stop"]);
      } catch {
        if (postmaster !== undefined && alive(postmaster)) process.kill(postmaster, "SIGKILL");
      }
      if (!process.env.KEEP_REHEARSAL_DATA) rmSync(clusterDir, { recursive: true, force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
