/**
 * The llm bench's model, in a process of its own as a real one is (so its work is not counted
 * as postbot's): the model test server on port 0, answering every chat request after `argv[2]`
 * ms (real time) with a text made from the request's last user message (`Answer to: ...`), so
 * that no two replies have the same text. Prints `model at URL` once it listens.
 */
import { answer, contentText, startModelServer } from "../helpers/model-server.ts";

const delayMs = Number(process.argv[2] ?? 0);
const model = await startModelServer();
model.chat.respond((req) => {
  const last = req.messages.findLast((m) => m.role === "user");
  const text = answer.chat(`Answer to: ${last ? contentText(last.content) : ""}`);
  return delayMs > 0 ? answer.delayed(delayMs, text) : text;
});
process.stdout.write(`model at ${model.url}\n`);
process.on("SIGTERM", () => {
  void model.close().then(() => process.exit(0));
});
