/**
 * A bot file's data as its YAML and `\${VAR}`s read it (before the schema checks it), kept in a
 * compact form: what a `bot start` process sharing its state keeps of a bot it does not run
 * (100,000 bots over four processes: each runs a quarter), so that when it comes to run the
 * bot its configuration is checked again from it (the schema, the plugins' options: some
 * 50 µs) rather than its file parsed again (some 600 µs of YAML, for each of 25,000 bots
 * taken over after a process died). V8's serialization, as the compiled index keeps it
 * (./compiled-index.ts), held in a one-byte string: a few hundred bytes a bot, in the heap
 * with nothing else to track.
 */
import { deserialize, serialize } from "node:v8";

/** The kept form of a bot file's data. */
export function sourceOf(data: unknown): string {
  return serialize(data).toString("latin1");
}

/** The kept form of data serialized already (the compiled index's entry). */
export function sourceOfSerialized(data: Buffer): string {
  return data.toString("latin1");
}

/** The data back from its kept form. */
export function dataOf(source: string): unknown {
  return deserialize(Buffer.from(source, "latin1"));
}
