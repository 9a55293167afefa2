/**
 * Saving and loading a sandbox's whole state (`bot sandbox --state FILE`): apps, tokens,
 * users, posts, windows. The file holds secrets (consumer secrets, tokens, passwords), so it
 * is written with mode 0600, and atomically (a temporary file renamed over the old one), so
 * a crash mid-save never leaves half a file.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { UserError } from "../errors.ts";
import { createData, type SandboxData } from "./model/index.ts";

/** Reads a state file; undefined when there is none yet. Throws a UserError naming the file when it is unusable. */
export async function loadState(file: string): Promise<SandboxData | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UserError(`cannot read the state file ${file}: ${(err as Error).message}`, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UserError(
      `${file} is not valid JSON (${(err as Error).message}); restore it or start with another --state file`,
      { cause: err },
    );
  }
  const obj = parsed as Partial<SandboxData> | null;
  if (!obj || typeof obj !== "object" || obj.version !== 1) {
    throw new UserError(
      `${file} is not a postbot sandbox state file (expected {"version": 1, ...}); start with another --state file`,
    );
  }
  for (const slice of ["auth", "world", "meter"] as const) {
    if (!obj[slice] || typeof obj[slice] !== "object")
      throw new UserError(`${file}: the "${slice}" section is missing or not an object`);
  }
  const fresh = createData();
  return {
    version: 1,
    lastId: typeof obj.lastId === "string" && /^\d+$/.test(obj.lastId) ? obj.lastId : fresh.lastId,
    auth: { ...fresh.auth, ...obj.auth },
    world: { ...fresh.world, ...obj.world },
    meter: { ...fresh.meter, ...obj.meter },
  };
}

/** Writes the state atomically with mode 0600. */
export async function saveState(file: string, data: SandboxData): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(tmp, "w", 0o600);
  try {
    await handle.writeFile(JSON.stringify(data));
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => {});
    await rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(tmp, file);
}
