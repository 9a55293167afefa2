/**
 * A client that tries to freeze the sandbox with a post text built to be expensive to count
 * (issue 26): 288 KB of 40,000 mentions, sent so that the sandbox handles it the moment its
 * last byte arrives, with another client's `GET /2/users/me` right behind it, over raw
 * sockets whose order this module controls. The suite asserts what both clients get
 * (test/sandbox/hostile-clients.test.ts); how long the other client waited is real time, so
 * only the bench measures it (test/bench/hostile-clients.bench.ts).
 */
import { connect, type Socket } from "node:net";
import { oauthHeader, type Account, type TestSandbox } from "./sandbox.ts";

/** A connected raw socket and what it received. */
export interface RawConnection {
  socket: Socket;
  received: string;
  /** When the first byte of the answer came (performance.now()). */
  firstByteAt: number;
  /** Resolves once the answer's head is complete. */
  answered: Promise<void>;
  closed: Promise<void>;
}

/** Opens a raw socket to `port`; `opened` gets it at once, so the caller can destroy it whatever happens. */
export async function rawSocket(port: number, opened: (socket: Socket) => void): Promise<RawConnection> {
  const socket = connect(port, "127.0.0.1");
  opened(socket);
  let answered!: () => void;
  const conn: RawConnection = {
    socket,
    received: "",
    firstByteAt: 0,
    answered: new Promise<void>((resolve) => (answered = resolve)),
    closed: new Promise<void>((resolve) => socket.once("close", () => resolve())),
  };
  socket.on("data", (d) => {
    conn.firstByteAt ||= performance.now();
    conn.received += d.toString("latin1");
    if (conn.received.includes("\r\n\r\n")) answered();
  });
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("connect", resolve));
  return conn;
}

/**
 * Waits until the socket's own buffer is empty and the loop has turned twice, so the
 * in-process server has read what was sent.
 */
async function delivered(socket: Socket): Promise<void> {
  while (socket.writableLength > 0) await new Promise((resolve) => socket.once("drain", resolve));
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The post's text: 288 KB, 40,000 mentions or more. */
export function crowdedText(): string {
  let text = "";
  for (let i = 0; text.length < 288_000; i++) text += `@m${String(i % 10_000).padStart(4, "0")} `;
  return text;
}

/** What the two clients got, and when the other one asked (performance.now()). */
export interface CrowdedExchange {
  post: RawConnection;
  other: RawConnection;
  askedAt: number;
}

/**
 * `as` posts {@link crowdedText} to the in-process sandbox `t` (all of the body but its last
 * byte first), and a second client asks for `GET /2/users/me` as the last byte goes; resolves
 * once both answers' heads are in. Every socket opened is handed to `opened`.
 */
export async function crowdedPost(
  t: TestSandbox,
  as: Account,
  opened: (socket: Socket) => void,
): Promise<CrowdedExchange> {
  const port = Number(new URL(t.url).port);
  const body = Buffer.from(JSON.stringify({ text: crowdedText() }));
  const post = await rawSocket(port, opened);
  post.socket.write(
    `POST /2/posts HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${oauthHeader(t.clock, as, "POST", `${t.url}/2/posts`)}\r\n` +
      `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
  );
  // All of the body but its last byte first, so the post is handled the moment that byte arrives...
  post.socket.write(body.subarray(0, -1));
  await delivered(post.socket);
  const other = await rawSocket(port, opened);
  post.socket.write(body.subarray(-1));
  // ...and another client asks for something right behind it.
  const askedAt = performance.now();
  other.socket.write(
    `GET /2/users/me HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${oauthHeader(t.clock, as, "GET", `${t.url}/2/users/me`)}\r\n\r\n`,
  );
  await Promise.all([other.answered, post.answered]);
  return { post, other, askedAt };
}
