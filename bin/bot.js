#!/usr/bin/env node
// The `bot` command. TypeScript runs without a build step: tsx compiles src/ (and users'
// plugins/) on load, so `npx bot` works straight from a checkout.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
await main();
