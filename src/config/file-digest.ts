/**
 * A bot file's text as what follows the bots directory remembers it, to see whether a save
 * changed it: a digest, not the text. The start reads every file once and the live fleet
 * compares each save with what the start read; with 100,000 files in every process of a
 * deployment, the texts themselves (~250 bytes each) were kept from the read until the fleet
 * had taken their digests.
 */
import { createHash } from "node:crypto";

/** The digest of a bot file's text (SHA-1, base64: 28 characters). */
export function fileDigest(text: string): string {
  return createHash("sha1").update(text).digest("base64");
}
