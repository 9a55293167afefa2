/**
 * `npm install` is quiet about install scripts: npm 11 warns at every install of a package
 * whose install script `allowScripts` in package.json does not cover (esbuild's postinstall,
 * which checks its platform binary). Every package of the lock file that has one is named
 * there, and this machine's npm, asked, finds none left to review.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

it("names every package with an install script in allowScripts, and npm finds none to review", async () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { allowScripts?: Record<string, unknown> };
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const scripted = Object.entries(lock.packages)
    .filter(([path, p]) => path !== "" && p.hasInstallScript)
    .map(([path]) => path.replace(/^.*node_modules\//, ""));
  expect(scripted.length).toBeGreaterThan(0);
  for (const name of scripted) expect(pkg.allowScripts?.[name], name).toBe(true);

  // npm 11 reviews them itself (`npm install-scripts`); an older npm has no such command, nor the warning.
  const { stdout: version } = await run("npm", ["--version"]);
  if (Number(version.split(".")[0]) < 11) return;
  const { stdout } = await run("npm", ["install-scripts", "ls", "--json"], { timeout: 60_000 });
  expect(JSON.parse(stdout)).toEqual({ allowScripts: [] });
}, 90_000);
