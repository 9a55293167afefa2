/**
 * The baseline of the sandbox benchmark: a bare node:http server that answers every request
 * with the same JSON the sandbox gave (BARE_BODY), doing nothing else. Prints its URL.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const body = process.env.BARE_BODY ?? "{}";
const length = String(Buffer.byteLength(body));
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": length });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
