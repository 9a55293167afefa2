#!/usr/bin/env node
// The `bot` command. Installed from npm, it runs the compiled postbot (build/, `npm run build`).
// In a checkout of postbot's repository (src/ beside bin/), it runs the TypeScript source
// under tsx instead: what runs is what was last edited, with no build step to forget.
import { existsSync } from "node:fs";

const source = new URL("../src/cli/main.ts", import.meta.url);
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  // A plugin's `import "postbot"` gets this source, not the checkout's build (src/plugins/self-import.ts).
  const { sendPostbotImportsHere } = await import("../src/plugins/self-import.ts");
  sendPostbotImportsHere();
  const { main } = await import(source.href);
  await main();
} else {
  const { main } = await import("../build/cli/main.js");
  await main();
}
