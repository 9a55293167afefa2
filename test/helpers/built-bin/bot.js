#!/usr/bin/env node
// `bot` compiled, as the package runs it (build/, which the suite builds once per run:
// ../build-setup.ts). In this checkout bin/bot.js runs the TypeScript source; the suite's
// children, and the documents' `npx bot` in their scratch copy, run this instead.
const { main } = await import("../../../build/cli/main.js");
await main();
