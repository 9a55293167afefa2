/**
 * The moderation judge bench's slow judge, in a process of its own as a real one is: the
 * model test server on port 0, answering every chat request `safe` after `argv[2]` ms (real
 * time), until killed. Prints `judge at URL` once it listens.
 */
import { answer, startModelServer } from "../helpers/model-server.ts";

const delayMs = Number(process.argv[2] ?? 200);
const model = await startModelServer();
model.chat.respond(answer.delayed(delayMs, answer.safe()));
process.stdout.write(`judge at ${model.url}\n`);
process.on("SIGTERM", () => {
  void model.close().then(() => process.exit(0));
});
